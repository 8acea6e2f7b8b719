package runner

// JudgeBudget is judgeBudget, for tests.
var JudgeBudget = judgeBudget
