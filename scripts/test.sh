#!/usr/bin/env bash
# The project's tests. Installs what they need, idempotently (scripts/setup.sh
# --tests); builds what they need (`credprov binaries ensure --for tests`, each
# build cached: the early stage first, with the type check, the format check
# and the linter beside it, the late stage niced beside the tests); runs the
# unit project in parallel jest workers, then the end-to-end project one file
# at a time (its files share this host's clusters, cgroups and lock). The files
# that need a late build run in two lanes (scripts/late-tests.ts), each file
# once the builds it needs have ended: the unit lane beside the end-to-end
# files, the end-to-end lane after them. Each jest run writes its JSON results;
# reports/jest-results.json holds them merged. reports/phases.tsv and reports/builds.tsv record each
# phase's and each build's start and end (ms since the epoch), for the table
# .ci/run prints.
#   scripts/test.sh                                     everything, as CI runs it
#   scripts/test.sh --selectProjects unit --testPathPatterns src/run
#                                                       extra arguments: one jest run with them
# Environment: CREDPROV_UNIT_WORKERS (default 2) jest workers for the unit project.
set -uo pipefail
source "$(dirname "$0")/lib.sh"
cd "$CREDPROV_ROOT"
mkdir -p reports
PHASES=reports/phases.tsv
BUILDS=reports/builds.tsv
rm -f "$PHASES" "$BUILDS" reports/jest-unit.json reports/jest-e2e.json reports/jest-late*.json reports/late-builds.rc

now_ms() { date +%s%3N; }
# phase NAME COMMAND...: runs it and records NAME, start, end and exit code.
phase() {
  local name=$1 start rc
  shift
  start=$(now_ms)
  "$@"
  rc=$?
  printf '%s\t%s\t%s\t%s\n' "$name" "$start" "$(now_ms)" "$rc" >>"$PHASES"
  return $rc
}

phase setup "$CREDPROV_ROOT/scripts/setup.sh" --tests || die "scripts/setup.sh --tests failed (see above)"
use_node
# rustup installs cargo under ~/.cargo/bin, which a non-login shell (CI) may not have on PATH: the kube-rs probe builds with it.
[ -x "$HOME/.cargo/bin/cargo" ] && export PATH="$PATH:$HOME/.cargo/bin"

# The type check, the format check and the linter need none of the builds: they run beside them.
static_checks() {
  log "type-checking"
  npx tsc --noEmit -p . || return 1
  log "checking the format (prettier; npx prettier --write . fixes it)"
  npx prettier --check . >/dev/null || {
    npx prettier --list-different . >&2
    printf 'error: files above are not formatted: run npx prettier --write .\n' >&2
    return 1
  }
  log "linting (eslint; npx eslint --fix . fixes most)"
  npx eslint . >&2 || {
    printf 'error: eslint found the problems above: run npx eslint --fix . and fix the rest\n' >&2
    return 1
  }
}
phase "type check, format and lint" static_checks &
checks=$!
ensure() { node bin/credprov.js binaries ensure --for tests --timings "$BUILDS" "$@" >/dev/null; }
jest() { node --experimental-vm-modules --no-warnings=ExperimentalWarning node_modules/jest/bin/jest.js "$@"; }

if [ $# -gt 0 ]; then
  log "building what the tests need (credprov binaries ensure --for tests; each build cached)"
  phase builds ensure
  built=$?
  wait $checks || die "the type check, the format check or the linter failed (see above)"
  [ $built -eq 0 ] || die "a build the tests need failed (see above)"
  log "running tests: jest $*"
  phase jest jest --json --outputFile=reports/jest-results.json "$@"
  exit $?
fi

# What most test files need first (kube binaries, containerd, the client-go probe); the late builds (older
# kubelets, vendor plugins, the kind tier's) only the files they name need, so they build niced beside the
# other files, and each of those files runs once its own builds have ended.
log "building what the tests need (credprov binaries ensure --for tests --stage early; each build cached)"
phase "early builds" ensure --stage early
built=$?
wait $checks || die "the type check, the format check or the linter failed (see above)"
[ $built -eq 0 ] || die "a build the tests need failed (see above)"
log "building the rest beside the tests (--stage late, niced; its log: reports/late-builds.log)"
late_builds() {
  nice -n 10 node bin/credprov.js binaries ensure --for tests --stage late --timings "$BUILDS" \
    >/dev/null 2>reports/late-builds.log
  local rc=$?
  echo $rc >reports/late-builds.rc
  return $rc
}
phase "late builds" late_builds &
late=$!
late_files=$(node bin/credprov.js binaries ensure --for tests --list-tests | sed 's/\./\\./g' | paste -sd'|')
[ -n "$late_files" ] || die "credprov binaries ensure --list-tests named no test file"
# late_lane unit|e2e NICENESS: the files of that project that need a late build, each batch once its builds are done.
late_lane() {
  nice -n "$2" node scripts/late-tests.ts --project "$1" --builds "$BUILDS" --builds-ended reports/late-builds.rc \
    --phases "$PHASES" --out "reports/jest-late-$1"
}

# Unit files are independent of each other and of the host: as many at a time as there are cores.
log "running the unit tests (${CREDPROV_UNIT_WORKERS:-2} workers)"
phase "unit tests" jest --selectProjects unit --maxWorkers="${CREDPROV_UNIT_WORKERS:-2}" \
  --testPathIgnorePatterns "$late_files" --json --outputFile=reports/jest-unit.json
unit=$?
# The unit files that need a late build are host-independent too: beside the end-to-end files.
log "the unit files that need a late build run as their builds end, beside the end-to-end files"
# (Niced a little: the end-to-end files beside them wait on real clusters.)
late_lane unit 5 &
unit_lane=$!
# End-to-end files bring up clusters, registries and dockerds on this host: one at a time.
log "running the end-to-end tests (one file at a time)"
phase "e2e tests" jest --selectProjects e2e --runInBand --testPathIgnorePatterns "$late_files" \
  --json --outputFile=reports/jest-e2e.json
e2e=$?
log "running the end-to-end files that need a late build as their builds end (one at a time)"
late_lane e2e 0
after_e2e=$?
wait $unit_lane
after_unit=$?
wait $late || { tail -n 40 reports/late-builds.log >&2; log "a late build failed (above): the files that need it say so"; }
node scripts/ci-report.ts merge reports/jest-results.json reports/jest-unit.json reports/jest-e2e.json \
  reports/jest-late-unit-*.json reports/jest-late-e2e-*.json
[ $unit -eq 0 ] && [ $e2e -eq 0 ] && [ $after_unit -eq 0 ] && [ $after_e2e -eq 0 ]
