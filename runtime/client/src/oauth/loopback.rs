//! The authorization step of a native app: show the user the authorization URL and take the
//! redirect on a loopback port (RFC 8252 §7.3).

use std::fmt;
use std::sync::Arc;
use std::time::Duration;

use futures::future::BoxFuture;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpListener;

use super::AuthorizationHandler;
use crate::error::ClientError;

/// An [`AuthorizationHandler`] that prints the authorization URL (or hands it to a function
/// of yours, to open a browser) and waits for the redirect to
/// `http://127.0.0.1:<port>/callback` on a listener bound at construction.
pub struct LoopbackHandler {
    listener: Arc<TcpListener>,
    redirect_uri: String,
    show: Arc<dyn Fn(&str) + Send + Sync>,
    timeout: Duration,
}

impl fmt::Debug for LoopbackHandler {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("LoopbackHandler").field("redirect_uri", &self.redirect_uri).finish_non_exhaustive()
    }
}

impl LoopbackHandler {
    /// Listen on `addr` (`127.0.0.1:0` takes any free port). The URL goes to stderr until
    /// [`on_url`](Self::on_url) says otherwise; the wait ends after 5 minutes.
    pub async fn bind(addr: &str) -> std::io::Result<Self> {
        let listener = TcpListener::bind(addr).await?;
        let local = listener.local_addr()?;
        Ok(Self {
            listener: Arc::new(listener),
            redirect_uri: format!("http://{local}/callback"),
            show: Arc::new(|url| eprintln!("Open this URL in a browser to sign in:\n\n  {url}\n")),
            timeout: Duration::from_secs(300),
        })
    }

    /// What to do with the authorization URL (print it, open a browser).
    pub fn on_url(mut self, show: impl Fn(&str) + Send + Sync + 'static) -> Self {
        self.show = Arc::new(show);
        self
    }

    /// How long to wait for the redirect.
    pub fn timeout(mut self, timeout: Duration) -> Self {
        self.timeout = timeout;
        self
    }
}

impl AuthorizationHandler for LoopbackHandler {
    fn redirect_uri(&self) -> String {
        self.redirect_uri.clone()
    }

    fn authorize(&self, authorization_url: String) -> BoxFuture<'static, Result<String, ClientError>> {
        let listener = self.listener.clone();
        let base = self.redirect_uri.trim_end_matches("/callback").to_owned();
        let show = self.show.clone();
        let timeout = self.timeout;
        Box::pin(async move {
            show(&authorization_url);
            let wait = async {
                loop {
                    let (mut socket, _) = listener.accept().await.map_err(|e| ClientError::Auth(e.to_string()))?;
                    let mut buf = vec![0u8; 8192];
                    let mut len = 0;
                    // Read up to the end of the request head (the query is all we need).
                    while len < buf.len() && !buf[..len].windows(4).any(|w| w == b"\r\n\r\n") {
                        match socket.read(&mut buf[len..]).await {
                            Ok(0) | Err(_) => break,
                            Ok(n) => len += n,
                        }
                    }
                    let head = String::from_utf8_lossy(&buf[..len]);
                    let target = head.lines().next().and_then(|l| l.split_whitespace().nth(1)).unwrap_or("");
                    if !target.starts_with("/callback") {
                        let _ = socket
                            .write_all(b"HTTP/1.1 404 Not Found\r\ncontent-length: 0\r\nconnection: close\r\n\r\n")
                            .await;
                        continue;
                    }
                    let page =
                        "<!doctype html><title>Signed in</title><p>You may close this window and return to the app.";
                    let reply = format!(
                        "HTTP/1.1 200 OK\r\ncontent-type: text/html; charset=utf-8\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{page}",
                        page.len()
                    );
                    let _ = socket.write_all(reply.as_bytes()).await;
                    return Ok(format!("{base}{target}"));
                }
            };
            tokio::time::timeout(timeout, wait)
                .await
                .map_err(|_| ClientError::Auth("no authorization redirect arrived in time".into()))?
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn takes_the_redirect_on_the_loopback_port() {
        let shown = Arc::new(std::sync::Mutex::new(String::new()));
        let seen = shown.clone();
        let handler =
            LoopbackHandler::bind("127.0.0.1:0").await.unwrap().on_url(move |u| *seen.lock().unwrap() = u.to_owned());
        let redirect = handler.redirect_uri();
        assert!(redirect.starts_with("http://127.0.0.1:") && redirect.ends_with("/callback"));
        let waiting = handler.authorize("https://as.example/authorize?x=1".into());
        let addr = redirect.trim_start_matches("http://").trim_end_matches("/callback").to_owned();
        let browser = tokio::spawn(async move {
            let mut other = tokio::net::TcpStream::connect(&addr).await.unwrap();
            other.write_all(b"GET /favicon.ico HTTP/1.1\r\nhost: x\r\n\r\n").await.unwrap();
            let mut sink = Vec::new();
            other.read_to_end(&mut sink).await.unwrap();
            assert!(sink.starts_with(b"HTTP/1.1 404"));
            let mut s = tokio::net::TcpStream::connect(&addr).await.unwrap();
            s.write_all(b"GET /callback?code=abc&state=xyz HTTP/1.1\r\nhost: x\r\n\r\n").await.unwrap();
            let mut page = Vec::new();
            s.read_to_end(&mut page).await.unwrap();
            assert!(page.starts_with(b"HTTP/1.1 200"));
        });
        let got = waiting.await.unwrap();
        browser.await.unwrap();
        assert_eq!(got, format!("{redirect}?code=abc&state=xyz"));
        assert_eq!(*shown.lock().unwrap(), "https://as.example/authorize?x=1");
    }
}
