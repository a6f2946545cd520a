//! A screenshot of a whole page in WebKit, through `WPEWebDriver`.
//!
//! cog has no screenshot option, and its headless platform is a fixed 800×600 view, so the page
//! is loaded through WebDriver (navigation returns after the load event), scrolled one view at a
//! time, and the views are stitched together. Only five WebDriver commands are needed (new
//! session, navigate, execute script, screenshot, delete session), spoken over a plain TCP
//! connection: JSON in, JSON out, `Connection: close`.

use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::Duration;

use serde_json::{Value, json};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;
use tokio::process::Command;

use crate::browser::engine::{Browser, Profile, Running};

/// How long one WebDriver command may take; navigation waits for the page's results.
const COMMAND_TIMEOUT: Duration = Duration::from_secs(60);

/// `$WPE_WEBDRIVER`, or `WPEWebDriver` on `PATH`.
pub(crate) fn find_driver() -> Option<PathBuf> {
    if let Some(path) = std::env::var_os("WPE_WEBDRIVER").filter(|p| !p.is_empty()) {
        return Some(PathBuf::from(path));
    }
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|dir| dir.join("WPEWebDriver"))
        .find(|candidate| candidate.is_file())
}

/// Loads `url` in `cog` (driven by `driver`) and writes a screenshot of the whole page to `out`.
pub(crate) async fn screenshot(
    driver: &Path,
    browser: &Browser,
    profile: &Profile,
    url: &str,
    out: &Path,
) {
    let port = free_port();
    let dir = profile.dir();
    let log = std::fs::File::create(dir.join("webdriver.log")).expect("create the driver log");
    let mut command = Command::new(driver);
    command
        .arg(format!("--port={port}"))
        .env("XDG_DATA_HOME", dir.join("xdg-data"))
        .env("XDG_CACHE_HOME", dir.join("xdg-cache"))
        .env("XDG_CONFIG_HOME", dir.join("xdg-config"))
        .stdin(Stdio::null())
        .stdout(log.try_clone().expect("clone the driver log"))
        .stderr(log)
        .process_group(0)
        .kill_on_drop(true);
    // The driver starts cog in its own process group, which dropping `_driver` ends.
    let _driver = Running::spawn(command, "WPEWebDriver");
    let client = Client { port };
    client.wait_until_ready().await;

    let session = client
        .send(
            "POST",
            "/session",
            Some(
                json!({ "capabilities": { "alwaysMatch": { "wpe:browserOptions": {
                    "binary": browser.program(),
                    "args": ["--automation", "-P", "headless", "--webprocess-failure=exit"],
                }}}}),
            ),
        )
        .await;
    let id = session["sessionId"]
        .as_str()
        .unwrap_or_else(|| panic!("no WebDriver session: {session}"))
        .to_owned();
    let base = format!("/session/{id}");
    client
        .send("POST", &format!("{base}/url"), Some(json!({ "url": url })))
        .await;

    let height = client
        .script(&base, "return document.documentElement.scrollHeight;")
        .await;
    let height = height.as_u64().expect("the page's height") as usize;
    let mut page: Option<Picture> = None;
    let mut y = 0;
    while y < height {
        let scrolled = client
            .script(
                &base,
                &format!("window.scrollTo(0, {y}); return window.scrollY;"),
            )
            .await;
        let scrolled = scrolled.as_u64().expect("the scroll position") as usize;
        let shot = client
            .send("GET", &format!("{base}/screenshot"), None)
            .await;
        let view = Picture::decode(&base64(shot.as_str().expect("a base64 PNG")));
        assert!(
            view.height > 0 && scrolled <= y,
            "a {}-pixel view at {scrolled} for {y}",
            view.height
        );
        let page = page.get_or_insert_with(|| Picture::blank(view.width, height));
        // The last view is scrolled as far as it goes, which may overlap the one before.
        page.paste(&view, y - scrolled, y);
        y = scrolled + view.height;
    }
    client.send("DELETE", &base, None).await;
    page.expect("the page has a height").encode(out);
}

/// A port that was free a moment ago (the driver takes a port number, not a socket).
fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|listener| listener.local_addr())
        .expect("a free port")
        .port()
}

struct Client {
    port: u16,
}

impl Client {
    async fn wait_until_ready(&self) {
        for _ in 0..100 {
            if let Ok(Ok(status)) =
                tokio::time::timeout(Duration::from_secs(1), self.request("GET", "/status", None))
                    .await
                && status["value"]["ready"] == true
            {
                return;
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
        panic!("WPEWebDriver did not start on port {}", self.port);
    }

    /// Runs `script` in the page; its return value.
    async fn script(&self, base: &str, script: &str) -> Value {
        self.send(
            "POST",
            &format!("{base}/execute/sync"),
            Some(json!({ "script": script, "args": [] })),
        )
        .await
    }

    /// Sends one command; its `value`, or a panic with the driver's error.
    async fn send(&self, method: &str, path: &str, body: Option<Value>) -> Value {
        let answer = tokio::time::timeout(COMMAND_TIMEOUT, self.request(method, path, body))
            .await
            .unwrap_or_else(|_| {
                panic!("WebDriver {method} {path}: no answer in {COMMAND_TIMEOUT:?}")
            })
            .unwrap_or_else(|e| panic!("WebDriver {method} {path}: {e}"));
        assert!(
            answer["value"]["error"].is_null(),
            "WebDriver {method} {path}: {answer}"
        );
        answer["value"].clone()
    }

    async fn request(
        &self,
        method: &str,
        path: &str,
        body: Option<Value>,
    ) -> std::io::Result<Value> {
        let body = body.map(|b| b.to_string()).unwrap_or_default();
        let mut stream = TcpStream::connect(("127.0.0.1", self.port)).await?;
        let request = format!(
            "{method} {path} HTTP/1.1\r\nHost: 127.0.0.1:{}\r\nConnection: close\r\n\
             Content-Type: application/json\r\nContent-Length: {}\r\n\r\n{body}",
            self.port,
            body.len()
        );
        stream.write_all(request.as_bytes()).await?;
        let mut raw = Vec::new();
        stream.read_to_end(&mut raw).await?;
        let split = raw
            .windows(4)
            .position(|w| w == b"\r\n\r\n")
            .ok_or_else(|| std::io::Error::other("no end of headers"))?;
        let head = String::from_utf8_lossy(&raw[..split]).to_ascii_lowercase();
        let mut content = raw[split + 4..].to_vec();
        if head.contains("transfer-encoding: chunked") {
            content = dechunk(&content);
        }
        serde_json::from_slice(&content).map_err(std::io::Error::other)
    }
}

/// The body of a `Transfer-Encoding: chunked` message.
fn dechunk(mut raw: &[u8]) -> Vec<u8> {
    let mut body = Vec::new();
    while let Some(end) = raw.windows(2).position(|w| w == b"\r\n") {
        let size = std::str::from_utf8(&raw[..end])
            .ok()
            .and_then(|line| usize::from_str_radix(line.split(';').next()?.trim(), 16).ok())
            .unwrap_or(0);
        raw = &raw[end + 2..];
        if size == 0 || raw.len() < size {
            break;
        }
        body.extend_from_slice(&raw[..size]);
        raw = raw.get(size + 2..).unwrap_or_default();
    }
    body
}

/// Standard base64, as WebDriver sends screenshots.
fn base64(text: &str) -> Vec<u8> {
    let value = |c: u8| match c {
        b'A'..=b'Z' => Some(c - b'A'),
        b'a'..=b'z' => Some(c - b'a' + 26),
        b'0'..=b'9' => Some(c - b'0' + 52),
        b'+' => Some(62),
        b'/' => Some(63),
        _ => None,
    };
    let mut out = Vec::with_capacity(text.len() / 4 * 3);
    let (mut bits, mut count) = (0u32, 0);
    for sextet in text.bytes().filter_map(value) {
        bits = bits << 6 | u32::from(sextet);
        count += 6;
        if count >= 8 {
            count -= 8;
            out.push((bits >> count) as u8);
        }
    }
    out
}

/// An RGBA picture.
struct Picture {
    width: usize,
    height: usize,
    rgba: Vec<u8>,
}

impl Picture {
    fn blank(width: usize, height: usize) -> Self {
        Self {
            width,
            height,
            rgba: vec![255; width * height * 4],
        }
    }

    fn decode(png: &[u8]) -> Self {
        let mut decoder = png::Decoder::new(std::io::Cursor::new(png));
        decoder.set_transformations(png::Transformations::EXPAND | png::Transformations::STRIP_16);
        let mut reader = decoder.read_info().expect("a PNG screenshot");
        let mut buffer = vec![0; reader.output_buffer_size().expect("a PNG of a sane size")];
        let info = reader.next_frame(&mut buffer).expect("a PNG screenshot");
        let (width, height) = (info.width as usize, info.height as usize);
        let pixels = &buffer[..info.buffer_size()];
        let rgba = match info.color_type {
            png::ColorType::Rgba => pixels.to_vec(),
            png::ColorType::Rgb => pixels
                .chunks_exact(3)
                .flat_map(|p| [p[0], p[1], p[2], 255])
                .collect(),
            other => panic!("a screenshot in {other:?}"),
        };
        Self {
            width,
            height,
            rgba,
        }
    }

    /// Copies the rows of `view` from `from` on to this picture's rows from `to` on.
    fn paste(&mut self, view: &Picture, from: usize, to: usize) {
        let width = self.width.min(view.width) * 4;
        for (source, target) in (from..view.height).zip(to..self.height) {
            let source = &view.rgba[source * view.width * 4..][..width];
            self.rgba[target * self.width * 4..][..width].copy_from_slice(source);
        }
    }

    fn encode(&self, out: &Path) {
        let file = std::fs::File::create(out).expect("create the screenshot");
        let mut encoder = png::Encoder::new(
            std::io::BufWriter::new(file),
            self.width as u32,
            self.height as u32,
        );
        encoder.set_color(png::ColorType::Rgba);
        encoder.set_depth(png::BitDepth::Eight);
        encoder
            .write_header()
            .and_then(|mut writer| writer.write_image_data(&self.rgba))
            .expect("write the screenshot");
    }
}
