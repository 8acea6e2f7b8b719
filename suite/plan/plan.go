// Package plan is what driving and judging agree on: where each vector
// test runs, when it applies and what it is bound to, which listed tools
// are called and with which arguments. Package execute follows the plan;
// package checks judges what came of it. plan imports neither.
package plan
