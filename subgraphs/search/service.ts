/** Opportunity-search domain use cases. */
import { HUNT_MODES, PAGINATION } from './engine/pagination.js';

export class SearchService {
  huntModes() {
    return HUNT_MODES;
  }

  pagination() {
    return PAGINATION;
  }
}
