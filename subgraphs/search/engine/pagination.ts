/** Hunt modes and pagination limits (spec: "Opportunity-search service", "Limits"; DESIGN section 5). */

export const HUNT_MODES = [
  { mode: 'general', parameter: null, description: 'Assessment of every holding: strong and weak positions, recommendations, concerns' },
  { mode: 'replace', parameter: 'symbol_replace', description: 'Ranked replacement candidates for one holding' },
  { mode: 'interest', parameter: 'symbol_interest', description: 'Suitability of a ticker of interest for the portfolio' },
] as const;
export type HuntMode = (typeof HUNT_MODES)[number]['mode'];

export const PAGINATION = { defaultPage: 1, defaultPageSize: 6, maxPageSize: 50 } as const;
