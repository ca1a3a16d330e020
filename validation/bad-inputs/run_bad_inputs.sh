#!/usr/bin/env bash
# Runs every validation/bad-inputs/*.expect case (the CTest test `bad-inputs`); the case format is in
# README.md beside this file. Usage: run_bad_inputs.sh MOEPLAN SOURCE_DIR WORK_DIR [NAME...]
# Each case runs in a directory of its own under WORK_DIR, and must give its exit code and message,
# leave every input unchanged and leave no output or temporary file behind.
set -u
moeplan=$1
source_dir=$2
work_dir=$3
shift 3
cases_dir=$source_dir/validation/bad-inputs
failures=0
passed=0
skipped=0

fail() {
  echo "FAIL $name: $*"
  failures=$((failures + 1))
}

# One line per entry under the case directory (links not followed): path, type, inode, size, link target,
# content hash. An input rewritten (even with the same bytes) or a file left behind changes it.
snapshot_directory() {
  (cd "$1" && find . -mindepth 1 -printf '%P %y %i %s %l\n' | sort)
  (cd "$1" && find . -mindepth 1 -type f -exec sha256sum {} + | sort -k 2)
}

# Every argument that names an existing path outside the case directory (models/..., a device): its
# entry, hash, and the names in its directory (a temporary file left beside it shows there).
snapshot_arguments() {
  local argument resolved
  for argument in "$@"; do
    argument=${argument#*=}
    [ -n "$argument" ] && [ -e "$case_dir/$argument" -o -e "$argument" ] || continue
    case $argument in /*) resolved=$argument ;; *) resolved=$case_dir/$argument ;; esac
    resolved=$(readlink -f -- "$resolved") || continue
    case $resolved in "$case_dir"/*) continue ;; esac
    stat -c '%n %F %i %s %t %T' -- "$resolved"
    [ -f "$resolved" ] && [ -r "$resolved" ] && sha256sum -- "$resolved"
    [ -d "$(dirname -- "$resolved")" ] && ls -A -- "$(dirname -- "$resolved")"
  done
}

snapshot() {
  snapshot_directory "$case_dir"
  snapshot_arguments "${arguments[@]}"
}

# The case's keys: command, error, exit, setup (repeated), env (repeated), stdout, skip.
read_case() {
  command="" error="" expected_exit=2 stdout_mode="" skip="" setups=() environment=()
  local line
  while IFS= read -r line || [ -n "$line" ]; do
    case $line in
      command=*) command=${line#command=} ;;
      error=*) error=${line#error=} ;;
      exit=*) expected_exit=${line#exit=} ;;
      setup=*) setups+=("${line#setup=}") ;;
      env=*) environment+=("${line#env=}") ;;
      stdout=*) stdout_mode=${line#stdout=} ;;
      skip=*) skip=${line#skip=} ;;
      '' | '#'*) ;;
      *) fail "unknown line in $name.expect: $line" ;;
    esac
  done <"$1"
}

# A fresh directory with links to the repository's data and copies of the case's own files.
prepare_directory() {
  rm -rf "$case_dir"
  mkdir -p "$case_dir"
  local entry
  for entry in engines models scenarios tests validation; do ln -s "$source_dir/$entry" "$case_dir/$entry"; done
  input=""
  for entry in "$cases_dir/$name".* "$cases_dir/$name"-*; do
    [ -f "$entry" ] && [ "$entry" != "$cases_dir/$name.expect" ] || continue
    cp -p "$entry" "$case_dir/"
    case $entry in "$cases_dir/$name".*) input=$(basename "$entry") ;; esac
  done
}

skipped_here() {
  case $skip in
    root) [ "$(id -u)" = 0 ] ;;
    non-root) [ "$(id -u)" != 0 ] ;;
    *) false ;;
  esac
}

run_moeplan() {
  local redirect=$work_dir/$name.stdout
  case $stdout_mode in
    closed) (cd "$case_dir" && exec env "${environment[@]}" timeout 60 "$moeplan" "${arguments[@]}" \
      2>"$work_dir/$name.stderr" >&-) ;;
    full) redirect=/dev/full ;&
    *) (cd "$case_dir" && exec env "${environment[@]}" timeout 60 "$moeplan" "${arguments[@]}" \
      2>"$work_dir/$name.stderr" >"$redirect") ;;
  esac
}

run_case() {
  name=$(basename "$1" .expect)
  case_dir=$work_dir/$name
  read_case "$1"
  if skipped_here; then
    skipped=$((skipped + 1))
    return
  fi
  prepare_directory
  local setup
  for setup in "${setups[@]}"; do
    setup=${setup//\{moeplan\}/$moeplan}
    (cd "$case_dir" && bash -c "$setup" >/dev/null) || fail "setup failed: $setup"
  done
  command=${command//\{file\}/$input}
  command=${command//\{out\}/out}
  command=${command//\{dir\}/$case_dir}
  eval "arguments=($command)"
  local before after code
  before=$(snapshot)
  run_moeplan 2>/dev/null  # the shell's own "Terminated" when a case ends by a signal
  code=$?
  after=$(snapshot)
  local stderr
  stderr=$(cat "$work_dir/$name.stderr")
  if [ "$code" != "$expected_exit" ]; then
    fail "exit $code, expected $expected_exit"$'\n'"  $stderr"
  elif [ -n "$error" ] && ! grep -qF -- "$error" <<<"$stderr"; then
    fail "expected '$error'"$'\n'"  got: $stderr"
  elif grep -qF "internal error" <<<"$stderr"; then
    fail "an internal error: $stderr"
  elif [ "$before" != "$after" ]; then
    fail "inputs changed or files left behind:"$'\n'"$(diff <(echo "$before") <(echo "$after"))"
  else
    passed=$((passed + 1))
    rm -rf "$case_dir"
  fi
}

rm -rf "$work_dir"
mkdir -p "$work_dir"
if [ $# -gt 0 ]; then
  for chosen in "$@"; do run_case "$cases_dir/$chosen.expect"; done
else
  for expectation in "$cases_dir"/*.expect; do run_case "$expectation"; done
fi
echo "bad inputs: $passed passed, $failures failed, $skipped skipped (each: its exit code and message, inputs" \
  "unchanged, nothing left behind)"
[ "$failures" = 0 ]
