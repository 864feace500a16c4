/**
 * A seeded mutator of JSON bodies for fuzz tests: it walks into the body and replaces one value
 * with an odd one, deletes a key, or adds one of `extraKeys` holding an odd value. The same seed
 * gives the same bodies, so a failure can be replayed.
 */
export function bodyMutator(random: () => number, odd: readonly unknown[], extraKeys: readonly string[]) {
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)]!;
  const mutate = (value: unknown, depth = 0): unknown => {
    if (depth > 0 && random() < 0.35) return pick(odd);
    if (Array.isArray(value)) {
      if (value.length === 0 || random() < 0.15) return [...value, pick(odd)];
      const copy = [...value];
      const i = Math.floor(random() * copy.length);
      copy[i] = mutate(copy[i], depth + 1);
      return copy;
    }
    if (value !== null && typeof value === 'object') {
      const copy: Record<string, unknown> = { ...(value as Record<string, unknown>) };
      const keys = Object.keys(copy);
      const roll = random();
      if (roll < 0.1 && keys.length > 0) delete copy[pick(keys)];
      else if (roll < 0.2) copy[pick(extraKeys)] = pick(odd);
      else if (keys.length > 0) {
        const key = pick(keys);
        copy[key] = mutate(copy[key], depth + 1);
      }
      return copy;
    }
    return pick(odd);
  };
  return mutate;
}
