// The code section's prose states no model number: its numbers are the code's own output,
// printed live under it.

/** @type {Record<string, import("../../../claims.js").Claim>} */
export const claims = {};
