/** Who is calling, as every service sees it (set by the origin from the Authorization header). */
import { AppError } from './errors.js';
import type { Principal, PartnerPrincipal } from './auth.js';

export type { Principal, PartnerPrincipal };

export function isPartner(principal: Principal): principal is PartnerPrincipal {
  return principal.kind === 'partner';
}

export function requirePartner(principal: Principal, what: string): PartnerPrincipal {
  if (!isPartner(principal)) throw new AppError('UNAUTHENTICATED', `Authentication required: ${what} needs a partner access token`);
  return principal;
}
