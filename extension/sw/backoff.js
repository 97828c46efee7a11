// Retry delays: each failure doubles the wait, from min up to max. Pure.

/** The wait after one more failure, given the current one (0: none yet). */
export const nextBackoff = (current, min, max) => (current ? Math.min(current * 2, max) : min);
