export function SecurityView({ symbol, date }: { symbol: string; date: string | null }) {
  return <section aria-labelledby="security-title"><h2 id="security-title">{symbol}</h2>{date}</section>;
}
