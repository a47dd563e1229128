//! `cargo xtask new-model NAME`: a new Lab model and its section, from the templates in
//! `xtask/templates/` (a working model with a closed form and its tests, and a section that
//! draws it), registered in the two places that are content: the model's line in
//! `lab_models!` (the report's order) and the section's name in `SECTIONS` (the page's order),
//! both appended. Everything else a model needs is found from its folders (ARCHITECTURE.md).
//!
//! `NAME` is snake_case (`admission`, `bounded_queue`): the core module and report key; the
//! section is its kebab-case (`bounded-queue`), the types and the call its PascalCase
//! (`BoundedQueueResult`, `simulateBoundedQueue`). The templates spell these `new_model`,
//! `new-model`, `NewModel` and `New model` (the title), and their stream `Stream::new(1_000_000)`;
//! the scaffold replaces each, and gives the model the next free stream id.

use std::path::Path;

/// The template's spellings of a model's names, as they appear in its files.
const TEMPLATE_SNAKE: &str = "new_model";
const TEMPLATE_KEBAB: &str = "new-model";
const TEMPLATE_PASCAL: &str = "NewModel";
const TEMPLATE_TITLE: &str = "New model";
const TEMPLATE_STREAM: &str = "Stream::new(1_000_000)";

/// A model's names in each spelling.
#[derive(Debug, PartialEq)]
pub struct Names {
    /// `bounded_queue`: the core module, the report key.
    pub snake: String,
    /// `bounded-queue`: the section's folder and name.
    pub kebab: String,
    /// `BoundedQueue`: the types' prefix and the call's suffix.
    pub pascal: String,
    /// `Bounded queue`: the heading.
    pub title: String,
}

impl Names {
    /// The names for `name`, or why it is not a model name.
    pub fn new(name: &str) -> Result<Names, String> {
        let valid = !name.is_empty()
            && name.len() <= 40
            && name.starts_with(|c: char| c.is_ascii_lowercase())
            && name
                .chars()
                .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_')
            && !name.ends_with('_')
            && !name.contains("__");
        if !valid {
            return Err(format!(
                "NAME must be snake_case: a lowercase letter, then lowercase letters, digits and \
                 single underscores, at most 40 characters (got {name:?})"
            ));
        }
        let words: Vec<&str> = name.split('_').collect();
        let capital = |w: &str| {
            let mut c = w.chars();
            c.next()
                .map(|f| f.to_ascii_uppercase().to_string() + c.as_str())
                .unwrap_or_default()
        };
        Ok(Names {
            snake: name.to_owned(),
            kebab: words.join("-"),
            pascal: words.iter().map(|w| capital(w)).collect(),
            title: capital(&words.join(" ")),
        })
    }

    /// `text` with the template's names replaced by these, and its stream by `stream`.
    pub fn apply(&self, text: &str, stream: u64) -> String {
        text.replace(TEMPLATE_STREAM, &format!("Stream::new({stream})"))
            .replace(TEMPLATE_SNAKE, &self.snake)
            .replace(TEMPLATE_KEBAB, &self.kebab)
            .replace(TEMPLATE_PASCAL, &self.pascal)
            .replace(TEMPLATE_TITLE, &self.title)
    }
}

/// The next stream id no model uses: one past the largest `Stream::new(N)` under the core's
/// `src/` (ids of a million and up are the tests' own).
pub fn next_stream(sources: &[String]) -> u64 {
    sources
        .iter()
        .flat_map(|s| {
            s.match_indices("Stream::new(")
                .map(move |(i, m)| &s[i + m.len()..])
        })
        .filter_map(|rest| {
            let digits: String = rest
                .chars()
                .take_while(|c| c.is_ascii_digit() || *c == '_')
                .filter(char::is_ascii_digit)
                .collect();
            digits.parse::<u64>().ok()
        })
        .filter(|&id| id < 1_000_000)
        .max()
        .map_or(1, |m| m + 1)
}

/// `lab/mod.rs`'s `lab_models!( … )` list with `name` appended.
pub fn register_model(lab_mod: &str, name: &str) -> Result<String, String> {
    let start = lab_mod
        .find("lab_models!(")
        .ok_or("crates/tail-lab-core/src/lab/mod.rs has no lab_models!( … ) list")?;
    let close = start
        + lab_mod[start..]
            .find(");")
            .ok_or("lab_models!( … ) is not closed by ');'")?;
    let body = lab_mod[start + "lab_models!(".len()..close].trim_end();
    let body = body.strip_suffix(',').unwrap_or(body);
    Ok(format!(
        "{}{body},\n    {name}\n{}",
        &lab_mod[..start + "lab_models!(".len()],
        &lab_mod[close..]
    ))
}

/// `web/lab/sections.js` with `name` added to `SECTIONS`, before "code" (the "In code"
/// section stays last: it has a call for each section above it).
pub fn register_section(sections_js: &str, name: &str) -> Result<String, String> {
    let code = "  \"code\",\n];";
    if !sections_js.contains(code) {
        return Err("web/lab/sections.js: SECTIONS does not end with \"code\"".into());
    }
    Ok(sections_js.replacen(code, &format!("  \"{name}\",\n{code}"), 1))
}

fn read(path: &Path) -> Result<String, String> {
    std::fs::read_to_string(path).map_err(|e| format!("could not read {}: {e}", path.display()))
}

fn write(path: &Path, text: &str) -> Result<(), String> {
    std::fs::write(path, text).map_err(|e| format!("could not write {}: {e}", path.display()))
}

/// Every `.rs` file's text under `dir`.
fn rust_sources(dir: &Path) -> Result<Vec<String>, String> {
    let mut out = Vec::new();
    let mut dirs = vec![dir.to_path_buf()];
    while let Some(d) = dirs.pop() {
        for entry in std::fs::read_dir(&d).map_err(|e| format!("{}: {e}", d.display()))? {
            let path = entry.map_err(|e| e.to_string())?.path();
            if path.is_dir() {
                dirs.push(path);
            } else if path.extension().is_some_and(|x| x == "rs") {
                out.push(read(&path)?);
            }
        }
    }
    Ok(out)
}

/// Copies the templates' files in `from` to `to`, names replaced.
fn copy_template(from: &Path, to: &Path, names: &Names, stream: u64) -> Result<(), String> {
    std::fs::create_dir_all(to).map_err(|e| format!("could not create {}: {e}", to.display()))?;
    let mut entries: Vec<_> = std::fs::read_dir(from)
        .map_err(|e| format!("{}: {e}", from.display()))?
        .filter_map(Result::ok)
        .map(|e| e.path())
        .collect();
    entries.sort();
    for path in entries {
        let file = path.file_name().expect("a directory entry has a name");
        write(&to.join(file), &names.apply(&read(&path)?, stream))?;
        println!("new-model: wrote {}", to.join(file).display());
    }
    Ok(())
}

/// `cargo xtask new-model NAME`.
pub fn run(args: &[String]) -> Result<(), String> {
    let [name] = args else {
        return Err("usage: cargo xtask new-model NAME (snake_case)".into());
    };
    let names = Names::new(name)?;
    let root = crate::root();
    let core = root.join("crates/tail-lab-core/src");
    let model_dir = core.join("lab").join(&names.snake);
    let section_dir = root.join("web/lab/sections").join(&names.kebab);
    for taken in [
        model_dir.clone(),
        core.join("lab").join(format!("{}.rs", names.snake)),
        section_dir.clone(),
    ] {
        if taken.exists() {
            return Err(format!("{} exists already", taken.display()));
        }
    }
    let lab_mod = core.join("lab/mod.rs");
    let sections_js = root.join("web/lab/sections.js");
    let registered_model = register_model(&read(&lab_mod)?, &names.snake)?;
    let registered_section = register_section(&read(&sections_js)?, &names.kebab)?;
    let stream = next_stream(&rust_sources(&core)?);
    let templates = root.join("xtask/templates");
    copy_template(&templates.join("model"), &model_dir, &names, stream)?;
    copy_template(&templates.join("section"), &section_dir, &names, stream)?;
    write(&lab_mod, &registered_model)?;
    write(&sections_js, &registered_section)?;
    println!(
        "new-model: registered {} in lab_models! (crates/tail-lab-core/src/lab/mod.rs) and \
         \"{}\" in SECTIONS (web/lab/sections.js), stream {stream}.\n\
         Next: `TAIL_LAB_WRITE_GOLDEN=1 cargo test -p tail-lab-core --lib options_page` \
         (docs/options.md), then `cargo xtask ci`.",
        names.snake, names.kebab
    );
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_in_every_spelling_and_refusals() {
        let n = Names::new("bounded_queue").unwrap();
        assert_eq!(
            n,
            Names {
                snake: "bounded_queue".into(),
                kebab: "bounded-queue".into(),
                pascal: "BoundedQueue".into(),
                title: "Bounded queue".into(),
            }
        );
        for bad in ["", "Bounded", "1queue", "a-b", "a__b", "queue_", "a b", "ü"] {
            let err = Names::new(bad).unwrap_err();
            assert!(err.contains("snake_case"), "{bad}: {err}");
        }
    }

    #[test]
    fn the_templates_names_are_all_replaced() {
        let n = Names::new("admission").unwrap();
        let root = crate::root().join("xtask/templates");
        for dir in ["model", "section"] {
            for entry in std::fs::read_dir(root.join(dir)).unwrap() {
                let text = std::fs::read_to_string(entry.unwrap().path()).unwrap();
                let out = n.apply(&text, 77);
                for placeholder in [
                    TEMPLATE_SNAKE,
                    TEMPLATE_KEBAB,
                    TEMPLATE_PASCAL,
                    TEMPLATE_TITLE,
                    "1_000_000",
                ] {
                    assert!(!out.contains(placeholder), "{dir}: {placeholder} left");
                }
            }
        }
        let model = std::fs::read_to_string(root.join("model/mod.rs")).unwrap();
        let out = n.apply(&model, 77);
        assert!(out.contains("Stream::new(77)") && out.contains("key: \"admission\""));
        assert!(out.contains("pub struct AdmissionResult"));
    }

    #[test]
    fn the_next_stream_is_one_past_the_largest() {
        let sources = [
            "pub const A: Stream = Stream::new(16);".to_owned(),
            "const B: Stream = Stream::new(31); const T: Stream = Stream::new(1_000_001);".into(),
        ];
        assert_eq!(next_stream(&sources), 32);
        assert_eq!(next_stream(&[]), 1);
    }

    #[test]
    fn registration_appends_to_both_lists() {
        let lab = "lab_models!(\n    fanout,\n    balancer_signals\n);\n\nfn x() {}\n";
        assert_eq!(
            register_model(lab, "admission").unwrap(),
            "lab_models!(\n    fanout,\n    balancer_signals,\n    admission\n);\n\nfn x() {}\n"
        );
        let js = "export const SECTIONS = [\n  \"fanout\",\n  \"code\",\n];\n";
        assert_eq!(
            register_section(js, "admission").unwrap(),
            "export const SECTIONS = [\n  \"fanout\",\n  \"admission\",\n  \"code\",\n];\n"
        );
        assert!(register_section("[]", "x").is_err());
        assert!(register_model("nothing", "x").is_err());
    }
}
