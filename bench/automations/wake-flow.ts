export const EVENT_NAME = 'user.signed_up';

/** The delay every run parks on; the benchmark moves the clock past it. */
export const DELAY_MS = 86_400_000;

/**
 * The flow every benchmark run follows: the trigger, a one-day delay, then three cheap steps
 * that send nothing (no MTA): a contact update, a condition on what it wrote (always met) and
 * one more contact update per branch. After the wake each run executes STEPS_AFTER_WAKE steps:
 * the delay's end, `tag`, `check` and `welcome`.
 */
export const WAKE_FLOW = {
  name: 'Wake',
  status: 'enabled',
  steps: [
    { key: 'start', type: 'trigger', config: { event_name: EVENT_NAME } },
    { key: 'wait', type: 'delay', config: { duration: '1 day' } },
    { key: 'tag', type: 'contact_update', config: { first_name: 'Woken' } },
    { key: 'check', type: 'condition', config: { type: 'rule', field: 'first_name', operator: 'eq', value: 'Woken' } },
    { key: 'welcome', type: 'contact_update', config: { last_name: 'Met' } },
    { key: 'fallback', type: 'contact_update', config: { last_name: 'NotMet' } },
  ],
  connections: [
    { from: 'start', to: 'wait' },
    { from: 'wait', to: 'tag' },
    { from: 'tag', to: 'check' },
    { from: 'check', to: 'welcome', type: 'condition_met' },
    { from: 'check', to: 'fallback', type: 'condition_not_met' },
  ],
};

export const STEPS_AFTER_WAKE = 4;
