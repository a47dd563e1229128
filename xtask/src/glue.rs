//! Hardens the JS glue that wasm-bindgen generates, after every build of the package.
//!
//! wasm-bindgen 0.2.130's reset machinery (`schedule_reinit`) has holes that no Rust code
//! can close, because they sit in the generated JS:
//!
//! 1. **An exception that unwinds through wasm is not noticed.** A JS exception thrown inside a
//!    call (a Proxy trap, a getter, a built-in the page replaced, the engine's stack-overflow
//!    `RangeError`) passes straight through the wasm frames. Their epilogues never run, so the
//!    shadow stack leaks, `RefCell` borrows stay taken ("recursive use" forever) and, after a
//!    few thousand such calls, every call traps. The glue now wraps each raw wasm export: any
//!    exception that leaves one has passed through wasm, so it schedules the same reset a
//!    panic does before it is rethrown. Errors the module throws on purpose (`RangeError`,
//!    `TypeError`) are thrown by the glue *after* wasm returned, and do not reset.
//! 2. **A reset can swap the instance under a running call.** Page code running inside a
//!    call (a getter, `tailLabOnPanic`) that calls the module while a reset is pending got a
//!    fresh instance while the outer call still ran in the old one. The wrapper counts calls
//!    in progress, and a pending reset waits until there are none; a reset that fails to
//!    instantiate is tried again at the next call.
//! 3. **Objects are checked in the wrong order, or not at all.** A method compared instance
//!    ids *before* `__wbg_call_guard()` replaced the instance, so an old object's first call
//!    after a failure used its pointer in the fresh instance; `free()` had no check at all, and
//!    freed whatever lived there. Misuse (a second `free()`, use after free, a foreign `this`,
//!    recursive use) was reported by throwing *through* wasm, which with (1) would reset every
//!    other object. Every method and accessor of every exported class now runs the reset
//!    first, then refuses stale, freed, foreign or busy objects in JS; a stale `free()` only
//!    forgets its pointer.
//!
//! Each patch is an exact text replacement that must match: a wasm-bindgen that generates
//! other text fails the build with a message, rather than shipping unpatched glue.
//! `tests/js/hardening.test.mjs` checks the behaviour.

use std::path::Path;

/// What the glue gets at its top: the wrapper for raw exports (uses the glue's own
/// `__wbg_reinit_scheduled`, defined further down in the same module scope), and the depth of
/// calls in progress.
const GUARD: &str = r#"
// tail-lab: added by xtask/src/glue.rs. Any exception that leaves a raw wasm export has
// unwound through wasm frames (their cleanup did not run): reset before the next call. The
// built-ins it uses are taken when the module loads, so a page that replaces them later
// cannot break a reset. `__tl_depth` counts raw calls in progress: a reset never happens
// while one is (page code running inside a call, or the panic report, cannot swap the
// instance out from under it).
const __tl_keys = Object.keys;
const __tl_apply = Reflect.apply;
const __tl_own = Object.getOwnPropertyDescriptor;
const __tl_define = Object.defineProperty;
const __tl_busy = Symbol("tail-lab busy");
let __tl_depth = 0;
function __tl_guard_exports(exports) {
    const guarded = { __proto__: null };
    for (const name of __tl_keys(exports)) {
        const value = exports[name];
        guarded[name] = typeof value !== "function" ? value : function () {
            __tl_depth++;
            try {
                return __tl_apply(value, undefined, arguments);
            } catch (e) {
                __wbg_reinit_scheduled = true;
                throw e;
            } finally {
                __tl_depth--;
            }
        };
    }
    return guarded;
}
"#;

/// What the glue gets at its end: every exported class's methods and accessors check, before
/// anything reaches wasm, that the object is one of this module's, not freed, and not already
/// in a call (wasm-bindgen reports those misuses by throwing *through* wasm, which would now
/// reset the module and every other object with it). `{CLASSES}` is replaced by the class
/// names.
const CLASS_GUARD: &str = r#"
// tail-lab: added by xtask/src/glue.rs. Misuse of one object is refused in JS, so it never
// unwinds through wasm and resets the module under every other object.
function __tl_guard_class(C) {
    const proto = C.prototype;
    const free = proto.free;
    for (const key of Reflect.ownKeys(proto)) {
        if (key === "constructor" || key === "__destroy_into_raw") continue;
        const d = __tl_own(proto, key);
        const guard = (f, isFree) => function () {
            __wbg_call_guard();
            if (this === null || typeof this !== "object" || !("__wbg_ptr" in this)) {
                throw new TypeError(`${C.name}.${String(key)} was called on something that is not a ${C.name}`);
            }
            if (this.__wbg_inst !== undefined && this.__wbg_inst !== __wbg_instance_id) {
                if (isFree) { this.__destroy_into_raw(); return; }
                throw new Error('Invalid stale object from previous Wasm instance');
            }
            if (!this.__wbg_ptr) {
                if (isFree) return;
                throw new Error(`this ${C.name} was freed`);
            }
            if (this[__tl_busy]) {
                throw new Error(`this ${C.name} is in use by a call that has not returned (recursive use)`);
            }
            this[__tl_busy] = true;
            try {
                return __tl_apply(f, this, arguments);
            } finally {
                this[__tl_busy] = false;
            }
        };
        if (typeof d.value === "function") {
            d.value = guard(d.value, d.value === free);
        } else {
            if (d.get) d.get = guard(d.get, false);
            if (d.set) d.set = guard(d.set, false);
        }
        __tl_define(proto, key, d);
    }
}
{CLASSES}
"#;

/// The patches: (what the generated glue says, what it says after, how many times at least).
fn patches() -> Vec<(&'static str, String, usize)> {
    vec![
        // 1. Raw exports, at first instantiation and at every reset.
        (
            "    wasm = instance.exports;\n",
            "    wasm = __tl_guard_exports(instance.exports);\n".into(),
            1,
        ),
        // 2. Never reset while a call is in progress; a failed reset is tried again.
        (
            "function __wbg_call_guard() {\n    if (__wbg_reinit_scheduled) {\n        __wbg_reset_state();\n",
            "function __wbg_call_guard() {\n    if (__wbg_reinit_scheduled) {\n        \
             if (__tl_depth > 0) throw new Error(\"tail-lab: the module is resetting after a \
             failure; call it again once the current call has returned\");\n        \
             __wbg_reset_state();\n"
                .into(),
            1,
        ),
        (
            "    __wbg_reinit_scheduled = false;\n    wasmInstance = new WebAssembly.Instance(wasmModule, __wbg_get_imports());\n    wasm = wasmInstance.exports;\n    wasm.__wbindgen_start();\n",
            "    wasmInstance = new WebAssembly.Instance(wasmModule, __wbg_get_imports());\n    \
             wasm = __tl_guard_exports(wasmInstance.exports);\n    wasm.__wbindgen_start();\n    \
             __wbg_reinit_scheduled = false;\n"
                .into(),
            1,
        ),
    ]
}

/// Applies every patch to `text`; an error names the first one that did not match.
pub fn harden(text: &str) -> Result<String, String> {
    if text.contains("__tl_guard_exports") {
        return Err("the glue is already hardened".into());
    }
    for needle in ["let __wbg_reinit_scheduled", "function __wbg_call_guard()"] {
        if !text.contains(needle) {
            return Err(format!(
                "the generated glue has no `{needle}`: this wasm-bindgen's reset machinery differs \
                 from 0.2.130's; review xtask/src/glue.rs"
            ));
        }
    }
    let mut out = text.to_string();
    for (from, to, at_least) in patches() {
        let found = out.matches(from).count();
        if found < at_least {
            return Err(format!(
                "the generated glue has {found} of {from:?} (expected at least {at_least}); \
                 review xtask/src/glue.rs for this wasm-bindgen"
            ));
        }
        out = out.replace(from, &to);
    }
    // After the `@ts-self-types` line, which must stay first.
    let at = out.find('\n').map_or(0, |i| i + 1);
    out.insert_str(at, GUARD);
    let classes: Vec<&str> = out
        .lines()
        .filter_map(|l| l.strip_prefix("export class "))
        .filter_map(|rest| rest.split([' ', '{']).next())
        .collect();
    if classes.is_empty() {
        return Err("the generated glue exports no class; review xtask/src/glue.rs".into());
    }
    let calls: String = classes
        .iter()
        .map(|c| format!("__tl_guard_class({c});\n"))
        .collect();
    out.push_str(&CLASS_GUARD.replace("{CLASSES}", &calls));
    Ok(out)
}

/// Hardens `dir/tail_lab.js` in place, and declares its options arguments optional in
/// `dir/tail_lab.d.ts` (when the package has one).
pub fn harden_package(dir: &Path) -> Result<(), String> {
    let path = dir.join("tail_lab.js");
    let text = std::fs::read_to_string(&path).map_err(|e| format!("cannot read {path:?}: {e}"))?;
    let hardened = harden(&text).map_err(|e| format!("{}: {e}", path.display()))?;
    std::fs::write(&path, hardened).map_err(|e| format!("cannot write {path:?}: {e}"))?;
    let dts = dir.join("tail_lab.d.ts");
    if let Ok(text) = std::fs::read_to_string(&dts) {
        std::fs::write(&dts, optional_options(&text))
            .map_err(|e| format!("cannot write {dts:?}: {e}"))?;
    }
    Ok(())
}

/// wasm-bindgen declares a last argument typed `XOptions | undefined` as required
/// (`opts: XOptions | undefined`), though every such call may leave it out: declare it
/// `opts?: XOptions`, so `simulateBalance()` type-checks as it runs.
pub fn optional_options(dts: &str) -> String {
    let mut out = String::with_capacity(dts.len());
    for line in dts.split_inclusive('\n') {
        let Some(end) = line.find("Options | undefined)") else {
            out.push_str(line);
            continue;
        };
        // The argument's name ends at the last ": " before its type.
        match line[..end].rfind(": ") {
            Some(colon) => {
                out.push_str(&line[..colon]);
                out.push_str("?: ");
                out.push_str(&line[colon + 2..end]);
                out.push_str("Options)");
                out.push_str(&line[end + "Options | undefined)".len()..]);
            }
            None => out.push_str(line),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn options_arguments_are_declared_optional() {
        let dts = "export function simulateQueue(opts: QueueOptions | undefined): QueueResult;\n\
                   export function leafQuantile(q: number, cfg: TailOptions | undefined): number;\n\
                   export function slowShare(p: number, n: number): number;\n";
        assert_eq!(
            optional_options(dts),
            "export function simulateQueue(opts?: QueueOptions): QueueResult;\n\
             export function leafQuantile(q: number, cfg?: TailOptions): number;\n\
             export function slowShare(p: number, n: number): number;\n"
        );
    }

    #[test]
    fn a_glue_without_the_expected_text_is_refused_not_shipped_unpatched() {
        let e = harden("let __wbg_reinit_scheduled = false;\nfunction __wbg_call_guard() {}")
            .unwrap_err();
        assert!(e.contains("wasm = instance.exports"), "{e}");
        assert!(harden("export function f() {}").is_err());
    }
}
