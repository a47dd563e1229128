// The numbers the balance section's prose states (see web/claims.js).

/** @type {Record<string, import("../../../claims.js").Claim>} */
export const claims = {};
