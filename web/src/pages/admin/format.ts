const number = new Intl.NumberFormat();

export const count = (value: number) => number.format(value);

/** "3 messages" / "1 message". */
export const messages = (value: number) => `${number.format(value)} message${value === 1 ? '' : 's'}`;

/** An age in seconds as the largest units that matter: "45 s", "12 min", "3 h 5 min", "2 d 4 h". */
export function age(seconds: number | null): string {
  if (seconds === null) return '—';
  if (seconds < 60) return `${seconds} s`;
  const minutes = Math.floor(seconds / 60);
  if (minutes < 60) return `${minutes} min`;
  const hours = Math.floor(minutes / 60);
  if (hours < 24) return `${hours} h ${minutes % 60} min`;
  return `${Math.floor(hours / 24)} d ${hours % 24} h`;
}
