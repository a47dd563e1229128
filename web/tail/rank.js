// Percentile ranks as a reader says them: "the leaf's 99.31st percentile". Formatting only: the
// level itself comes from the core (`parentLevel(q, n)`, the leaf level q^(1/n) at which the
// parent's q-quantile sits).

/**
 * The suffix of an ordinal written in digits: "1" → "st", "12" → "th", "22" → "nd", "113" → "th".
 * Digits after a decimal point are read one by one ("ninety-nine point three one"), so there
 * the last digit alone decides: "99.31" → "st", "99.11" → "st", "99.5" → "th"; the teens rule
 * (11th, 12th, 13th) applies to whole numbers.
 * @param {string} digits a non-negative number as written, e.g. "99.31"
 */
export function ordinalSuffix(digits) {
  const last = digits.at(-1);
  const teen = !digits.includes(".") && digits.at(-2) === "1";
  if (teen) return "th";
  return last === "1" ? "st" : last === "2" ? "nd" : last === "3" ? "rd" : "th";
}

/**
 * A quantile level (a fraction 0..1) as an ordinal percentile: 0.99309 → "99.31st",
 * 0.5 → "50th", 0.99 → "99th", 0.9998995 → "99.99th". Two decimals, trailing zeros dropped,
 * and more where two would round a level below 1 up to "100": 0.99996 → "99.996th".
 * "—" when there is no level.
 * @param {number | null | undefined} level
 */
export function formatPercentileRank(level) {
  if (level === null || level === undefined || !Number.isFinite(level)) return "—";
  if (level < 0 || level > 1) return "—";
  const pct = 100 * level;
  let digits = 2;
  let text = pct.toFixed(digits);
  while (level < 1 && Number(text) >= 100 && digits < 15) text = pct.toFixed(++digits);
  if (text.includes(".")) text = text.replace(/\.?0+$/, "");
  return `${text}${ordinalSuffix(text)}`;
}
