/** How a books verdict or rating word reads, as a CSS class beside the shared `tone` of signed figures. */

/** The tone of a verdict or rating word: SUITABLE/STRONG good, UNSUITABLE/WEAK bad, the rest neutral. */
export function verdictTone(word: string): 'good' | 'bad' | 'neutral' {
  switch (word.toUpperCase()) {
    case 'SUITABLE':
    case 'STRONG':
      return 'good';
    case 'UNSUITABLE':
    case 'WEAK':
      return 'bad';
    default:
      return 'neutral';
  }
}
