// The matching suite: one kubelet config with a provider per question, each a
// recording fake; one pod per image. Every case's prediction comes from the
// matching oracle and the version table (src/run/live-matching.ts); the real
// kubelet's execs and pull results are then compared. The images' hosts
// (a.glob.match.test, docker.io, port.match.test:5000 …) are all routed to
// one local registry, so nothing leaves the machine.
import { liveMatchingSuite } from '../../src/run/kit.ts';
import { MATCHING_ANSWERS, MATCHING_CASES, MATCHING_CONFIG } from './plan.ts';

export const matchingSuite = liveMatchingSuite({
  name: 'matching',
  summary:
    'which providers the kubelet execs per image (host globs, label counts, ports, path prefixes, docker.io, digests), in what order, and whether the pull works, against the matching oracle',
  config: MATCHING_CONFIG,
  cases: MATCHING_CASES,
  answers: MATCHING_ANSWERS,
});
