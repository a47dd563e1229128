//! `cargo xtask serve`: builds the page, then serves `web/` on localhost with a small static
//! file server.
//!
//! Std only. It serves files with their MIME types (`application/wasm` for `.wasm`, which
//! `WebAssembly.instantiateStreaming` requires), refuses paths that leave `web/`, and answers
//! one request per connection.

use std::io::{BufRead, BufReader, Write};
use std::net::{TcpListener, TcpStream};
use std::path::{Component, Path, PathBuf};

/// Parses `--port N`, then serves until interrupted.
pub fn run(args: &[String]) -> Result<(), String> {
    let mut port: u16 = 8000;
    let mut it = args.iter();
    while let Some(arg) = it.next() {
        match arg.as_str() {
            "--port" => {
                let v = it
                    .next()
                    .ok_or("--port needs a value: an integer in 1..=65535")?;
                port = v.parse().ok().filter(|&p| p > 0).ok_or(format!(
                    "--port must be an integer in 1..=65535 (got {v:?})"
                ))?;
            }
            other => return Err(format!("unknown argument {other:?}")),
        }
    }
    crate::tools::build_page()?;
    let web = crate::root().join("web");
    let listener = TcpListener::bind(("127.0.0.1", port))
        .map_err(|e| format!("cannot listen on 127.0.0.1:{port}: {e}"))?;
    println!("Tail Latency Lab: http://127.0.0.1:{port}/  (Ctrl-C to stop)");
    for stream in listener.incoming() {
        match stream {
            Ok(s) => {
                if let Err(e) = answer(s, &web) {
                    eprintln!("serve: {e}");
                }
            }
            Err(e) => eprintln!("serve: {e}"),
        }
    }
    Ok(())
}

/// The MIME type for a file name.
pub fn mime(path: &Path) -> &'static str {
    match path.extension().and_then(|e| e.to_str()).unwrap_or("") {
        "html" => "text/html; charset=utf-8",
        "js" | "mjs" => "text/javascript; charset=utf-8",
        "wasm" => "application/wasm",
        "css" => "text/css; charset=utf-8",
        "json" => "application/json",
        "png" => "image/png",
        "svg" => "image/svg+xml",
        "txt" | "md" => "text/plain; charset=utf-8",
        _ => "application/octet-stream",
    }
}

/// Maps a request path to a file under `web`, refusing anything that would leave it.
pub fn resolve(web: &Path, request_path: &str) -> Option<PathBuf> {
    let path = request_path.split(['?', '#']).next().unwrap_or("/");
    let mut out = web.to_path_buf();
    for part in Path::new(path.trim_start_matches('/')).components() {
        match part {
            Component::Normal(p) => out.push(p),
            Component::CurDir => {}
            _ => return None,
        }
    }
    if out.is_dir() {
        out.push("index.html");
    }
    Some(out)
}

fn answer(mut stream: TcpStream, web: &Path) -> std::io::Result<()> {
    let mut line = String::new();
    BufReader::new(&stream).read_line(&mut line)?;
    let mut parts = line.split_whitespace();
    let (method, target) = (parts.next().unwrap_or(""), parts.next().unwrap_or("/"));
    let file = resolve(web, target).filter(|p| p.is_file());
    let (status, body, kind) = match (method, file) {
        ("GET" | "HEAD", Some(f)) => ("200 OK", std::fs::read(&f)?, mime(&f)),
        ("GET" | "HEAD", None) => ("404 Not Found", b"not found\n".to_vec(), "text/plain"),
        _ => (
            "405 Method Not Allowed",
            b"method not allowed\n".to_vec(),
            "text/plain",
        ),
    };
    write!(
        stream,
        "HTTP/1.1 {status}\r\nContent-Type: {kind}\r\nContent-Length: {}\r\nCache-Control: no-cache\r\nConnection: close\r\n\r\n",
        body.len()
    )?;
    if method != "HEAD" {
        stream.write_all(&body)?;
    }
    stream.flush()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wasm_is_served_as_application_wasm() {
        assert_eq!(mime(Path::new("pkg/tail_lab_bg.wasm")), "application/wasm");
        assert_eq!(mime(Path::new("index.html")), "text/html; charset=utf-8");
        assert_eq!(mime(Path::new("main.js")), "text/javascript; charset=utf-8");
    }

    #[test]
    fn paths_cannot_leave_web() {
        let web = Path::new("/srv/web");
        assert_eq!(resolve(web, "/../secret"), None);
        assert_eq!(
            resolve(web, "/pkg/a.js?x=1"),
            Some(PathBuf::from("/srv/web/pkg/a.js"))
        );
    }
}
