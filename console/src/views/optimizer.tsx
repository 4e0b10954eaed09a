export function OptimizerView() {
  return <section aria-labelledby="optimizer-title"><h2 id="optimizer-title">Optimizer</h2></section>;
}
