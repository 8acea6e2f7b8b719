// Package plan is what driving and judging agree on: the probes a run
// may send beyond discovery (Probe, one constant each, and the tag its
// traffic carries), where each vector test runs, when it applies and what
// it is bound to, and which listed tools are called with which arguments.
//
// A check declares the probes it judges (checks.Check.Needs); the suite
// gathers those of the selected checks into a Set (suite.Needs); package
// execute sends the probes of that Set, and package checks finds their
// traffic in the evidence by Probe.Tag. plan imports neither execute nor
// checks, and execute does not import checks.
package plan
