#!/usr/bin/env bash
# Opens every report type in headless Chromium: each page must load with no console message, its
# charts must be in the rendered DOM, and one screenshot per report type goes to validation/screenshots/.
# Usage: tests/report/browser_check.sh [BUILD_DIR]   (default: build; needs moeplan)
set -euo pipefail
cd "$(dirname "$0")/../.."

build="${1:-build}"
browser="$(command -v chromium || command -v chromium-browser || true)"
if [ -z "$browser" ]; then
  echo "browser check skipped: chromium is not installed (apt-get install chromium)"
  exit 0
fi
moeplan="$build/apps/moeplan/moeplan"
[ -x "$moeplan" ] || { echo "browser check: $moeplan is not built" >&2; exit 1; }

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
screenshots=validation/screenshots
mkdir -p "$screenshots"

echo "== writing the reports"
"$moeplan" --quiet plan-deploy --model models/deepseek-v3.yaml --scenario scenarios/deepseek-v3-8xh200.yaml --top 6 \
  --report "$work/plan-deploy.html"
"$moeplan" --quiet eplb-solve --loads validation/data/eplb_deepseek_v3_synthetic.json --model models/deepseek-v3.yaml \
  --nodes 4 --gpus 32 --slots 288 --out "$work/placement.json" --report "$work/eplb-solve.html"
"$moeplan" --quiet simulate --model models/qwen3-235b-a22b.yaml --scenario scenarios/qwen3-235b-rl-910b.yaml \
  --layout dp=16,ep=16 --compare dp=16,ep=16,otp=4 --report "$work/simulate.html"
# A real 4 x H200 calibration, re-fitted: no GPU needed.
"$moeplan" --quiet calibrate --from validation/data/calibration_2xh200.json --report "$work/calibrate.html"

run_browser() {
  timeout 40 "$browser" --headless --no-sandbox --disable-gpu --no-first-run --disable-background-networking \
    --disable-component-update --disable-sync --user-data-dir="$(mktemp -d -p "$work")" "$@"
}

failures=0
# report, the charts it must draw, a class only its charts carry
for check in "plan-deploy 5 front" "eplb-solve 4 cells" "simulate 3 series" "calibrate 27 held-out"; do
  read -r report charts marker <<<"$check"
  page="file://$work/$report.html"
  run_browser --enable-logging=stderr --v=0 --dump-dom "$page" >"$work/$report.dom" 2>"$work/$report.log" || true
  problems=""
  if grep -q "CONSOLE" "$work/$report.log"; then problems+=" console: $(grep CONSOLE "$work/$report.log" | head -3 | tr '\n' ' ')"; fi
  drawn="$(grep -o '<svg ' "$work/$report.dom" | wc -l)"
  [ "$drawn" -ge "$charts" ] || problems+=" $drawn of $charts charts in the DOM;"
  grep -q "class=\"$marker\"" "$work/$report.dom" || problems+=" no element of class $marker;"
  rm -f "$screenshots/$report.png"
  run_browser --hide-scrollbars --window-size=1400,1800 --screenshot="$PWD/$screenshots/$report.png" "$page" \
    >/dev/null 2>"$work/$report.screenshot.log" || true
  [ -s "$screenshots/$report.png" ] || problems+=" no screenshot;"
  if [ -n "$problems" ]; then
    echo "FAIL $report:$problems"
    failures=$((failures + 1))
  else
    echo "ok   $report: $drawn charts, no console messages, $screenshots/$report.png"
  fi
done
exit "$failures"
