#!/usr/bin/env bash
# Times whole mcpconform runs, the median of N (default 7) of each:
#   - the default run against the reference server (`mcpconform`, no arguments),
#   - the default run against the go-sdk and mcp-go servers of internal/testservers,
#   - the default run against @modelcontextprotocol/server-everything (needs node
#     and internal/testservers/setup.sh), with and without tool calls,
# each next to the server's own cost: one bare session (the process spawned,
# initialized, asked resources/list and three resources/read by a tiny client,
# then closed), and the ratio of the run's wall time to the session's (goal: at
# most 3); and the same runs with --spec-version all. It times, too, how long
# the reference server (`mcpconform mock`) and the go-sdk server take from
# spawn to their answer to initialize.
# Over Streamable HTTP, against server-everything (streamableHttp): the run at
# its URL, the server started once beforehand as the official suite runs,
# beside the official @modelcontextprotocol/conformance suite when
# MCPCONFORM_OFFICIAL_SUITE names its command (e.g.
# "node /path/to/node_modules/.bin/conformance"; nothing is installed here),
# and the launched form (--transport http), the server's own start included.
# For each run it also reports how many server processes it started (the JSON
# report's target.processes), the CPU time of the whole process tree, and the
# peak RSS of the mcpconform process (with /usr/bin/time -v: Debian package
# `time`, installed here when missing and running as root).
#
# Side by side, old and new alternating so that the machine's load falls on
# both alike (section "side"):
#   - a default run against server-everything, and the official conformance
#     suite (`--conformance PATH`: the dist/index.js of a build or an install
#     of @modelcontextprotocol/conformance, run with `--conformance-node
#     NODE`, default `node`) against the same server, which it drives over
#     Streamable HTTP only: the server is started for it before the clock,
#     and its start is timed apart;
#   - mcpconform at that same server's URL (every check and the HTTP probes)
#     beside the official suite, the load average before and after, and then
#     the verdicts of one more such run (harness errors must be 0);
#   - a fleet (`mcpconform fleet`) of the real servers of the compatibility
#     matrix (go-sdk, mcp-go, TS McpServer, server-everything), --parallel 2
#     against --parallel 1 (the same runs one after another), default runs
#     and --spec-version all.
#
#   scripts/timerun.sh [-n N] [--conformance PATH [--conformance-node NODE]] [--only runs,side,hostile]
#
# Figures measured with it are in docs/performance.md.
set -euo pipefail
cd "$(dirname "$0")/.."

runs=7
conformance=""
conformance_node=node
only="runs,side,hostile"
while [ $# -gt 0 ]; do
  case "$1" in
    -n) runs="$2"; shift 2 ;;
    --conformance) conformance="$2"; shift 2 ;;
    --conformance-node) conformance_node="$2"; shift 2 ;;
    --only) only="$2"; shift 2 ;;
    -h|--help) sed -n '2,40p' "$0"; exit 0 ;;
    *) echo "usage: $0 [-n N] [--conformance PATH [--conformance-node NODE]] [--only runs,side,hostile]" >&2; exit 2 ;;
  esac
done
section() { case ",$only," in *",$1,"*) return 0 ;; esac; return 1; }

if [ ! -x /usr/bin/time ] && [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends time >/dev/null 2>&1 ||
    { apt-get update -qq >/dev/null && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends time >/dev/null; } || true
fi
have_time=false
[ -x /usr/bin/time ] && /usr/bin/time -v true >/dev/null 2>&1 && have_time=true

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
echo "building mcpconform and the go-sdk and mcp-go test servers ..."
go build -o "$tmp/mcpconform" ./cmd/mcpconform
go build -o "$tmp/gosdk" ./internal/testservers/gosdk
go build -o "$tmp/mcpgo" ./internal/testservers/mcpgo

now_ms() { echo $(( $(date +%s%N) / 1000000 )); }

# median prints the median of its arguments.
median() { printf '%s\n' "$@" | sort -n | awk '{a[NR]=$1} END {print (NR%2) ? a[(NR+1)/2] : int((a[NR/2]+a[NR/2+1])/2)}'; }

# cpu_now sets CPU to the user+system CPU milliseconds of every child this
# shell has waited for so far (`times` must run in this shell, not a subshell).
cpu_now() {
  times >"$tmp/times.txt"
  CPU=$(awk 'NR==2 {split($1,u,/[ms]/); split($2,s,/[ms]/); printf "%d\n", (u[1]*60+u[2]+s[1]*60+s[2])*1000}' "$tmp/times.txt")
}

# time_run NAME [FLAGS...] [-- SERVER ARGV...]: runs `mcpconform [FLAGS] [-- SERVER ARGV]` N times;
# prints the median wall time, the median CPU time of the process tree, the
# processes started and the peak RSS.
time_run() {
  local name="$1"; shift
  local server=() walls=() cpus=() t0 t1 c0 c1 rss="n/a" procs="n/a"
  # Flags for mcpconform come first, up to "--"; then the server.
  while [ $# -gt 0 ] && [ "$1" != "--" ]; do server+=("$1"); shift; done
  [ $# -gt 0 ] && shift
  [ $# -gt 0 ] && server+=(-- "$@")
  for i in $(seq "$runs"); do
    cpu_now; c0=$CPU; t0=$(now_ms)
    "$tmp/mcpconform" --quiet "${server[@]}" >/dev/null 2>&1 || true
    t1=$(now_ms); cpu_now; c1=$CPU
    walls+=($((t1 - t0))); cpus+=($((c1 - c0)))
  done
  # One more run, not timed, for the report and the peak RSS.
  rm -f "$tmp/report.json"
  if $have_time; then
    /usr/bin/time -v -o "$tmp/time.txt" "$tmp/mcpconform" --quiet --json "$tmp/report.json" "${server[@]}" >/dev/null 2>&1 || true
    # ru_maxrss of the children: the largest single process of the tree (mcpconform or a server).
    rss=$(awk -F': ' '/Maximum resident set size/ {printf "%.1f MB", $2/1024}' "$tmp/time.txt")
  else
    "$tmp/mcpconform" --quiet --json "$tmp/report.json" "${server[@]}" >/dev/null 2>&1 || true
  fi
  procs=$(grep -o '"processes": *[0-9]*' "$tmp/report.json" | grep -o '[0-9]*$' || echo "n/a")
  RUN_WALL=$(median "${walls[@]}")
  printf '%-40s wall %6s ms (median of %d; min %s, max %s)  cpu %6s ms  processes %s  peak RSS (largest process) %s\n' \
    "$name" "$RUN_WALL" "$runs" "$(printf '%s\n' "${walls[@]}" | sort -n | head -1)" \
    "$(printf '%s\n' "${walls[@]}" | sort -n | tail -1)" "$(median "${cpus[@]}")" "$procs" "$rss"
}

# one_session ARGV...: spawns the server, initializes, lists resources, reads
# three of them (the first listed, three times), closes stdin and waits for
# the exit: the server's own cost of one session, with no harness in between.
one_session() {
  coproc SRV { "$@" 2>/dev/null; }
  local out="${SRV[1]}" in="${SRV[0]}" pid="$SRV_PID" id uri
  echo '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"timerun","version":"0"}}}' >&"$out"
  wait_for 1
  echo '{"jsonrpc":"2.0","method":"notifications/initialized"}' >&"$out"
  echo '{"jsonrpc":"2.0","id":2,"method":"resources/list"}' >&"$out"
  wait_for 2
  uri=$(printf '%s' "$LINE" | grep -o '"uri": *"[^"]*"' | head -1 | sed 's/^"uri": *//')
  for id in 3 4 5; do
    echo '{"jsonrpc":"2.0","id":'"$id"',"method":"resources/read","params":{"uri":'"$uri"'}}' >&"$out"
    wait_for "$id"
  done
  eval "exec ${out}>&-"
  wait "$pid" 2>/dev/null || true
}

# wait_for ID: reads server lines until the response with that id, left in LINE.
wait_for() {
  while IFS= read -r -t 30 LINE <&"$in"; do
    case "$LINE" in *'"id":'"$1"[,}]*|*'"id": '"$1"[,}]*) return 0 ;; esac
  done
  echo "timerun: no response with id $1" >&2
  return 1
}

# first_answer NAME ARGV...: spawns the server, sends initialize and times
# the wait for its answer (the clock is bash's EPOCHREALTIME, read with no
# process started), then closes stdin; the median of 5 x N.
first_answer() {
  local name="$1"; shift
  local walls=() t0 t1 i
  for i in $(seq $((runs * 5))); do
    t0=${EPOCHREALTIME/./}
    coproc SRV { "$@" 2>/dev/null; }
    local out="${SRV[1]}" in="${SRV[0]}" pid="$SRV_PID"
    echo '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"timerun","version":"0"}}}' >&"$out"
    wait_for 1
    t1=${EPOCHREALTIME/./}
    eval "exec ${out}>&-"
    wait "$pid" 2>/dev/null || true
    walls+=($(( (t1 - t0) / 100 )))
  done
  printf '%-40s %5s ms (median of %d, spawn to the answer to initialize)\n' "$name" \
    "$(median "${walls[@]}" | awk '{printf "%.1f", $1 / 10}')" "${#walls[@]}"
}

# time_http times server-everything over Streamable HTTP: at its URL, the
# official suite beside it when MCPCONFORM_OFFICIAL_SUITE is set, and the
# launched form.
time_http() {
  local port=$((20000 + RANDOM % 20000)) pid i walls=() t0 t1
  PORT=$port node "$everything" streamableHttp >/dev/null 2>&1 &
  pid=$!
  for i in $(seq 200); do
    (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null && break
    sleep 0.05
  done
  time_run "server-everything over HTTP, at its URL" "http://127.0.0.1:$port/mcp"
  if [ -n "${MCPCONFORM_OFFICIAL_SUITE:-}" ]; then
    for i in $(seq "$runs"); do
      t0=$(now_ms)
      $MCPCONFORM_OFFICIAL_SUITE server --url "http://127.0.0.1:$port/mcp" >/dev/null 2>&1 || true
      t1=$(now_ms)
      walls+=($((t1 - t0)))
    done
    printf '%-40s wall %6s ms (median of %d)\n' "  the official suite, same server" "$(median "${walls[@]}")" "$runs"
  else
    echo "  the official suite: not timed (set MCPCONFORM_OFFICIAL_SUITE to its command)"
  fi
  kill "$pid" 2>/dev/null || true
  wait "$pid" 2>/dev/null || true
  time_run "server-everything over HTTP, launched" --transport http --env 'PORT={port}' -- node "$everything" streamableHttp
}

# time_pair NAME [FLAGS...] [-- SERVER ARGV...]: time_run, then one bare
# session of the same server (the reference server when none is given),
# and the ratio of the two walls.
time_pair() {
  local name="$1"; shift
  local args=("$@") server=() walls=() t0 t1 i
  while [ $# -gt 0 ] && [ "$1" != "--" ]; do shift; done
  [ $# -gt 0 ] && shift
  server=("$@")
  [ ${#server[@]} -eq 0 ] && server=("$tmp/mcpconform" mock)
  time_run "$name" "${args[@]}"
  for i in $(seq "$runs"); do
    t0=$(now_ms)
    one_session "${server[@]}"
    t1=$(now_ms)
    walls+=($((t1 - t0)))
  done
  printf '%-40s wall %6s ms (median of %d)  ratio run/session %s\n' "  one bare session" \
    "$(median "${walls[@]}")" "$runs" "$(awk -v r="$RUN_WALL" -v s="$(median "${walls[@]}")" 'BEGIN {printf "%.1f", (s > 0) ? r / s : 0}')"
}

echo "machine: $(nproc) cores; load average $(cut -d' ' -f1-3 /proc/loadavg); $(date -u +%Y-%m-%d)"
everything=""
if command -v node >/dev/null; then
  pkg=internal/testservers/ts/node_modules/@modelcontextprotocol/server-everything
  if [ -f "$pkg/package.json" ]; then
    bin=$(node -e 'console.log(require(process.argv[1]).bin["mcp-server-everything"])' "$PWD/$pkg/package.json")
    everything="$PWD/$pkg/$bin"
  fi
fi

if section runs; then
  time_pair "reference server (mcpconform)"
  time_run "reference server, all versions" --spec-version all
  time_pair "go-sdk server" -- "$tmp/gosdk"
  time_run "go-sdk server, all versions" --spec-version all -- "$tmp/gosdk"
  time_pair "mcp-go server" -- "$tmp/mcpgo"
  first_answer "mock: first answer" "$tmp/mcpconform" mock
  first_answer "go-sdk server: first answer" "$tmp/gosdk"
  if [ -n "$everything" ]; then
    time_pair "server-everything" -- node "$everything" stdio
    time_pair "server-everything, --call-tools readonly" --call-tools readonly -- node "$everything" stdio
    time_run "server-everything, all versions" --spec-version all -- node "$everything" stdio
    time_http
  else
    echo "server-everything: skipped (needs node and internal/testservers/setup.sh)"
  fi
fi

# side_by_side NAME-A NAME-B: runs the shell functions run_a and run_b in
# turn, N times each, alternating, and prints the median wall of each and
# their ratio.
side_by_side() {
  local a="$1" b="$2" wa=() wb=() t0 i
  for i in $(seq "$runs"); do
    t0=$(now_ms); run_a; wa+=($(( $(now_ms) - t0 )))
    t0=$(now_ms); run_b; wb+=($(( $(now_ms) - t0 )))
  done
  local ma mb
  ma=$(median "${wa[@]}") mb=$(median "${wb[@]}")
  printf '%-52s wall %6s ms (median of %d; min %s, max %s)\n' "$a" "$ma" "$runs" "$(printf '%s\n' "${wa[@]}" | sort -n | head -1)" "$(printf '%s\n' "${wa[@]}" | sort -n | tail -1)"
  printf '%-52s wall %6s ms (median of %d; min %s, max %s)  ratio %s\n' "$b" "$mb" "$runs" "$(printf '%s\n' "${wb[@]}" | sort -n | head -1)" "$(printf '%s\n' "${wb[@]}" | sort -n | tail -1)" \
    "$(awk -v x="$ma" -v y="$mb" 'BEGIN {printf "%.2f", (y > 0) ? x / y : 0}')"
}

# wait_port PORT: waits (at most 20 s) until something listens on PORT.
wait_port() {
  local i
  for i in $(seq 200); do
    (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null && return 0
    sleep 0.1
  done
  echo "timerun: nothing listens on port $1" >&2
  return 1
}

if section side && [ -n "$everything" ] && [ -n "$conformance" ]; then
  port=39171
  t0=$(now_ms)
  PORT=$port node "$everything" streamableHttp >/dev/null 2>&1 &
  http_pid=$!
  wait_port "$port"
  echo "server-everything over Streamable HTTP: listening $(( $(now_ms) - t0 )) ms after its start (outside the official suite's time)"
  run_a() { "$tmp/mcpconform" --quiet -- node "$everything" stdio >/dev/null 2>&1 || true; }
  run_b() { "$conformance_node" "$conformance" server --url "http://127.0.0.1:$port/mcp" >/dev/null 2>&1 || true; }
  echo "official suite $("$conformance_node" "$conformance" --version 2>/dev/null) on Node.js $("$conformance_node" --version)"
  side_by_side "mcpconform default run, server-everything (stdio)" "official suite, server-everything (HTTP)"
  # The same instance at its URL: both suites drive it over Streamable HTTP.
  run_a() { "$tmp/mcpconform" --quiet "http://127.0.0.1:$port/mcp" >/dev/null 2>&1 || true; }
  echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
  side_by_side "mcpconform http://127.0.0.1:$port/mcp" "official suite, the same URL"
  echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
  "$tmp/mcpconform" --quiet --json "$tmp/http.json" "http://127.0.0.1:$port/mcp" >/dev/null 2>&1 || true
  # The verdicts of that run, by kind ("error" counts harness errors), and
  # those of the http-* checks.
  node -e '
    const r = require(process.argv[1]).results, n = (rs) => {
      const c = {}; for (const x of rs) c[x.verdict] = (c[x.verdict] || 0) + 1;
      return Object.entries(c).map(([v, k]) => k + " " + v).join(", ");
    };
    console.log("mcpconform at the URL, one more run: " + n(r) + "; of them http-*: " + n(r.filter((x) => x.id.startsWith("http-"))));
  ' "$tmp/http.json"
  kill "$http_pid" 2>/dev/null || true
  wait "$http_pid" 2>/dev/null || true
elif section side; then
  echo "official suite: skipped (needs --conformance PATH, node and internal/testservers/setup.sh)"
fi

if section side && [ -n "$everything" ]; then
  # The compatibility matrix's servers as a target list.
  for all in "" all; do
    list="$tmp/fleet$all.yaml"
    {
      echo "targets:"
      echo "  - {id: gosdk, command: [\"$tmp/gosdk\"], spec-version: \"$all\"}"
      echo "  - {id: mcpgo, command: [\"$tmp/mcpgo\"], spec-version: \"$all\"}"
      echo "  - {id: ts, command: [node, \"$PWD/internal/testservers/ts/server.mjs\"], spec-version: \"$all\"}"
      echo "  - {id: everything, command: [node, \"$everything\", stdio], spec-version: \"$all\"}"
    } >"$list"
    run_a() { "$tmp/mcpconform" fleet --quiet --parallel 2 "$list" >/dev/null 2>&1 || true; }
    run_b() { "$tmp/mcpconform" fleet --quiet --parallel 1 "$list" >/dev/null 2>&1 || true; }
    side_by_side "fleet of 4 real servers${all:+, all versions}, --parallel 2" "the same one after another (--parallel 1)"
  done
fi

# Memory against hostile servers: the peak RSS (VmHWM) of the mcpconform
# process itself, read from /proc while it runs (the server making the
# flood is another process, not counted), with every report written
# (--report-dir), and the size of the largest report and of report.md.
peak_run() {
  local name="$1"; shift
  local t0 pid hwm v code=0 largest md
  t0=$(now_ms)
  rm -rf "$tmp/reports"
  "$tmp/mcpconform" --quiet --report-dir "$tmp/reports" "$@" >/dev/null 2>&1 &
  pid=$! hwm=0
  while kill -0 "$pid" 2>/dev/null; do
    v=$(awk '/^VmHWM/ {print $2}' "/proc/$pid/status" 2>/dev/null || true)
    [ -n "$v" ] && hwm=$v
    sleep 0.02
  done
  wait "$pid" || code=$?
  largest=$(find "$tmp/reports" -type f -printf '%s %f\n' 2>/dev/null | sort -n | tail -1)
  md=$(stat -c %s "$tmp/reports/report.md" 2>/dev/null || echo n/a)
  printf '%-40s mcpconform peak RSS %6.1f MB  wall %6s ms  exit %s  largest report %s  report.md %s\n' "$name" \
    "$(echo "$hwm" | awk '{print $1/1024}')" "$(( $(now_ms) - t0 ))" "$code" "${largest:-none}" "$md"
}
section hostile || exit 0
for fault in huge-response notification-flood stdout-flood request-flood endless-line deep-nesting huge-server-info \
  huge-line huge-line-unterminated stderr-flood nested-arrays small-items-flood small-items-line; do
  peak_run "hostile: $fault" -- "$tmp/mcpconform" mock --fault "$fault"
done
# A 50 MB blob (66.7 MB of base64 on one line), answered to every
# resources/read, by the tiny server of internal/bench.
go test -c -o "$tmp/bench.test" ./internal/bench
peak_run "blob: 50 MB" --env MCPCONFORM_BENCH_SERVE=blob -- "$tmp/bench.test"
# A server listing 200,000 resources on one page (an 8.4 MB answer).
peak_run "200,000 resources listed" --env MCPCONFORM_BENCH_SERVE=many --env MCPCONFORM_BENCH_ITEMS=200000 -- "$tmp/bench.test"
