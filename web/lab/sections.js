// Every Lab section by name: what `[data-section]`, the embed element's `kind` and panel.html's
// `?kind=` refer to.

import * as balance from "./sections/balance.js";
import * as code from "./sections/code.js";
import * as fanout from "./sections/fanout.js";
import * as hedge from "./sections/hedge.js";
import * as loaded from "./sections/loaded.js";

export const SECTIONS = { fanout, hedge, loaded, balance, code };
