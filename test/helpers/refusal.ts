/** The error a call throws, or undefined when it does not throw: for t.match on AppError fields. */
export function refusal(call: () => unknown): unknown {
  try {
    call();
  } catch (err) {
    return err;
  }
  return undefined;
}
