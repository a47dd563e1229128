//! `cargo xtask dist [--out DIR]`: the site as one self-contained folder (default `dist/`) that
//! any static host serves as it is: relative paths only, no server code, and a page that works
//! whatever MIME type the host gives `.wasm`. The benchmark page is left out.

use std::fs;
use std::path::Path;

/// Parses `--out DIR`, builds the page and copies the site.
pub fn run(args: &[String]) -> Result<(), String> {
    let mut out = crate::root().join("dist");
    let mut it = args.iter();
    while let Some(arg) = it.next() {
        match arg.as_str() {
            "--out" => out = it.next().ok_or("--out needs a folder")?.into(),
            other => return Err(format!("unknown argument {other:?} (expected --out DIR)")),
        }
    }
    crate::tools::build_page()?;
    copy_site(&crate::root().join("web"), &out)?;
    println!("dist: the site is in {}", out.display());
    Ok(())
}

/// Copies `web` into a fresh `out`, without the benchmark page or dotfiles.
pub fn copy_site(web: &Path, out: &Path) -> Result<(), String> {
    if out.exists() {
        fs::remove_dir_all(out).map_err(|e| format!("cannot clear {}: {e}", out.display()))?;
    }
    copy_dir(web, out)
}

fn copy_dir(from: &Path, to: &Path) -> Result<(), String> {
    fs::create_dir_all(to).map_err(|e| format!("cannot create {}: {e}", to.display()))?;
    for entry in fs::read_dir(from).map_err(|e| format!("cannot read {}: {e}", from.display()))? {
        let entry = entry.map_err(|e| e.to_string())?;
        let name = entry.file_name();
        let name = name.to_string_lossy();
        if name.starts_with('.') || name == "bench" {
            continue;
        }
        let (src, dst) = (entry.path(), to.join(&*name));
        if src.is_dir() {
            copy_dir(&src, &dst)?;
        } else {
            fs::copy(&src, &dst).map_err(|e| format!("cannot copy {}: {e}", src.display()))?;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn copies_the_site_without_the_bench_page_or_dotfiles() {
        let base = std::env::temp_dir().join(format!("tail-lab-dist-{}", std::process::id()));
        let web = base.join("web");
        fs::create_dir_all(web.join("bench")).unwrap();
        fs::create_dir_all(web.join("pkg")).unwrap();
        fs::write(web.join("index.html"), "lab").unwrap();
        fs::write(web.join("bench/index.html"), "bench").unwrap();
        fs::write(web.join("pkg/.gitignore"), "*").unwrap();
        fs::write(web.join("pkg/tail_lab_bg.wasm"), "wasm").unwrap();
        let out = base.join("dist");
        fs::create_dir_all(&out).unwrap();
        fs::write(out.join("stale.txt"), "old").unwrap();
        copy_site(&web, &out).unwrap();
        assert_eq!(fs::read_to_string(out.join("index.html")).unwrap(), "lab");
        assert!(out.join("pkg/tail_lab_bg.wasm").exists());
        assert!(!out.join("bench").exists());
        assert!(!out.join("pkg/.gitignore").exists());
        assert!(!out.join("stale.txt").exists());
        fs::remove_dir_all(base).unwrap();
    }
}
