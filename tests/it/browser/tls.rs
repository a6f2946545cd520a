//! HTTPS for the scenarios that need it: a self-signed certificate for `127.0.0.1` and
//! `localhost`, made once per test run, and a TLS listener that `axum::serve` accepts.

use std::net::SocketAddr;
use std::sync::{Arc, OnceLock};
use std::time::Duration;

use tokio::net::{TcpListener, TcpStream};
use tokio::sync::mpsc;
use tokio_rustls::TlsAcceptor;
use tokio_rustls::rustls::ServerConfig;
use tokio_rustls::rustls::pki_types::{CertificateDer, PrivateKeyDer, PrivatePkcs8KeyDer};
use tokio_rustls::server::TlsStream;

/// The test run's certificate and the server configuration that presents it.
pub(crate) struct Certificate {
    config: Arc<ServerConfig>,
    /// SHA-256 of the certificate, `AB:CD:..` (what Firefox's certificate override records).
    pub(crate) fingerprint: String,
}

/// The certificate, made on first use.
pub(crate) fn certificate() -> &'static Certificate {
    static CERTIFICATE: OnceLock<Certificate> = OnceLock::new();
    CERTIFICATE.get_or_init(|| {
        let made =
            rcgen::generate_simple_self_signed(["127.0.0.1".to_owned(), "localhost".to_owned()])
                .expect("make a self-signed certificate");
        let der: CertificateDer<'static> = made.cert.der().clone();
        let key = PrivateKeyDer::Pkcs8(PrivatePkcs8KeyDer::from(made.signing_key.serialize_der()));
        let fingerprint = ring::digest::digest(&ring::digest::SHA256, &der)
            .as_ref()
            .iter()
            .map(|byte| format!("{byte:02X}"))
            .collect::<Vec<_>>()
            .join(":");
        let provider = Arc::new(tokio_rustls::rustls::crypto::ring::default_provider());
        let mut config = ServerConfig::builder_with_provider(provider)
            .with_safe_default_protocol_versions()
            .expect("TLS 1.2 and 1.3 with ring")
            .with_no_client_auth()
            .with_single_cert(vec![der], key)
            .expect("the certificate matches its key");
        // The servers speak HTTP/1.1 only (the suite's axum has no `http2` feature).
        config.alpn_protocols = vec![b"http/1.1".to_vec()];
        Certificate {
            config: Arc::new(config),
            fingerprint,
        }
    })
}

/// TLS connections on `127.0.0.1`. Handshakes run in tasks of their own, so a connection that
/// never completes one (a browser gives up on a socket it opened ahead of time) does not hold up
/// the others; the finished ones come out of [`axum::serve::Listener::accept`].
pub(crate) struct TlsListener {
    handshaken: mpsc::Receiver<(TlsStream<TcpStream>, SocketAddr)>,
    local: SocketAddr,
}

impl TlsListener {
    pub(crate) async fn bind(certificate: &Certificate) -> Self {
        let tcp = TcpListener::bind("127.0.0.1:0")
            .await
            .expect("bind 127.0.0.1:0");
        let local = tcp.local_addr().expect("local address");
        let acceptor = TlsAcceptor::from(certificate.config.clone());
        let (done, handshaken) = mpsc::channel(16);
        tokio::spawn(async move {
            loop {
                let Ok((stream, peer)) = tcp.accept().await else {
                    // Out of file descriptors, say: wait instead of spinning.
                    tokio::time::sleep(Duration::from_millis(50)).await;
                    continue;
                };
                if done.is_closed() {
                    return;
                }
                let (acceptor, done) = (acceptor.clone(), done.clone());
                tokio::spawn(async move {
                    let handshake = acceptor.accept(stream);
                    if let Ok(Ok(tls)) =
                        tokio::time::timeout(Duration::from_secs(10), handshake).await
                    {
                        let _ = done.send((tls, peer)).await;
                    }
                });
            }
        });
        Self { handshaken, local }
    }
}

impl axum::serve::Listener for TlsListener {
    type Io = TlsStream<TcpStream>;
    type Addr = SocketAddr;

    async fn accept(&mut self) -> (Self::Io, Self::Addr) {
        match self.handshaken.recv().await {
            Some(connection) => connection,
            // The accept loop has ended with the runtime: nothing more will come.
            None => std::future::pending().await,
        }
    }

    fn local_addr(&self) -> std::io::Result<Self::Addr> {
        Ok(self.local)
    }
}
