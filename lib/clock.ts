/** One source of "now" so tests and jobs can reason about time in one place. */
export type Clock = { now(): Date };

export const systemClock: Clock = { now: () => new Date() };
