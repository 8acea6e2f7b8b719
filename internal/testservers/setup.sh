#!/usr/bin/env bash
# setup.sh installs what the Node.js test servers and the TypeScript everything
# client need: node and npm, then the packages pinned in ts/package-lock.json
# and examples/everything/ts/package-lock.json. It is idempotent: a second run
# with everything in place changes nothing and takes about a second.
#
# Usage: internal/testservers/setup.sh   (from anywhere; CI runs it as root)
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
# Each folder holds a package.json and the package-lock.json that pins it.
folders=("$here/ts" "$root/examples/everything/ts")

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

# install runs npm ci in folder $1 unless its node_modules is up to date: npm
# writes node_modules/.package-lock.json on every install, so one newer than
# the lock file, with every direct dependency present, means nothing to do.
install() {
	local dir="$1"
	if [ -f "$dir/node_modules/.package-lock.json" ] &&
		[ "$dir/node_modules/.package-lock.json" -nt "$dir/package-lock.json" ] &&
		(cd "$dir" && node -e '
			const deps = Object.keys(require("./package.json").dependencies ?? {});
			const fs = require("node:fs");
			process.exit(deps.every((d) => fs.existsSync(`node_modules/${d}/package.json`)) ? 0 : 1);
		'); then
		echo "setup.sh: $dir/node_modules is up to date" >&2
		return
	fi
	# npm ci installs exactly what package-lock.json pins, or fails if the
	# lock and package.json disagree.
	(cd "$dir" && npm ci --no-audit --no-fund --loglevel=error)
	echo "setup.sh: installed node packages in $dir" >&2
}

for dir in "${folders[@]}"; do
	install "$dir"
done
