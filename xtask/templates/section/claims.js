// The numbers this section's prose states, each computed through the API (see
// web/claims.js). Its prose states none yet: a digit added to prose.html needs a claim here.

/** @type {Record<string, import("../../../claims.js").Claim>} */
export const claims = {};
