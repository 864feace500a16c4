// Types of bin/build-state.js (plain JavaScript: bin/mailroom.js runs it before any build exists)
// for the TypeScript that asks the same question (bench:audience: is the scheduler compiled?).
export type BuildState = { fresh: true } | { fresh: false; reason: string };
export function buildState(root: string): BuildState;
export function webBuildState(root: string): BuildState;
