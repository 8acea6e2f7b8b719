#!/usr/bin/env bash
# setup.sh installs what the Node.js test servers need: node and npm, then the
# packages pinned in ts/package-lock.json. It is idempotent: a second run with
# everything in place changes nothing and takes about a second.
#
# Usage: internal/testservers/setup.sh   (from anywhere; CI runs it as root)
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ts="$here/ts"

need_node() {
	command -v node >/dev/null 2>&1 && command -v npm >/dev/null 2>&1
}

if ! need_node; then
	if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
		echo "setup.sh: installing nodejs and npm with apt-get" >&2
		export DEBIAN_FRONTEND=noninteractive
		apt-get update -qq
		apt-get install -y -qq nodejs npm >/dev/null
	else
		echo "setup.sh: node and npm are required; install Node.js >= 18 and run again" >&2
		exit 1
	fi
fi

major="$(node -p 'process.versions.node.split(".")[0]')"
if [ "$major" -lt 18 ]; then
	echo "setup.sh: node $(node --version) is too old; the servers need Node.js >= 18" >&2
	exit 1
fi

# A lock file that matches node_modules means there is nothing to do; npm
# writes node_modules/.package-lock.json on every install.
if [ -f "$ts/node_modules/.package-lock.json" ] &&
	[ "$ts/node_modules/.package-lock.json" -nt "$ts/package-lock.json" ] &&
	[ -f "$ts/node_modules/@modelcontextprotocol/sdk/package.json" ] &&
	[ -f "$ts/node_modules/@modelcontextprotocol/server-everything/package.json" ]; then
	echo "setup.sh: $ts/node_modules is up to date" >&2
	exit 0
fi

# npm ci installs exactly what package-lock.json pins, or fails if the lock
# and package.json disagree.
cd "$ts"
npm ci --no-audit --no-fund --loglevel=error
echo "setup.sh: installed node packages in $ts" >&2
