//! The coordinator's own dashboard: when it runs in a terminal, the same screen as
//! `tui dashboard`, fed over loopback by the same progress stream any dashboard uses.
//!
//! The screen runs on a thread of its own and the feed on the server's runtime, so drawing
//! never holds up serving or training. Quitting the screen stops the coordinator (it is the
//! process's foreground), so `q` asks first; if the screen fails, the coordinator carries on
//! without it.

use std::net::SocketAddr;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, mpsc};
use std::time::Duration;

use tigers_dashboard::{Closed, Dashboard, FeedSettings, follow, show};
use tigers_proto::client::ClientSettings;
use tokio::sync::oneshot;
use tokio::task::JoinHandle;
use tracing::{error, info};

use crate::config::CoordinatorConfig;

/// How often the coordinator's own screen is refreshed.
const INTERVAL: Duration = Duration::from_secs(1);

/// A running local dashboard.
#[derive(Debug)]
pub struct LocalDashboard {
	closing: Arc<AtomicBool>,
	feed: JoinHandle<()>,
	screen: std::thread::JoinHandle<()>,
}

impl LocalDashboard {
	/// Starts the screen for the coordinator listening on `address`; `quit` fires when the
	/// user quits it. Call from within the server's runtime.
	pub fn start(
		address: SocketAddr,
		config: &CoordinatorConfig,
		quit: oneshot::Sender<()>,
	) -> std::io::Result<LocalDashboard> {
		let settings = FeedSettings {
			url: config.local_url(address),
			client: ClientSettings {
				token: config.token.clone(),
				tls_ca: config.tls.as_ref().map(|(cert, _)| cert.clone()),
			},
			interval: INTERVAL,
		};
		let (sender, events) = mpsc::channel();
		let title = format!("this coordinator ({})", settings.url);
		let feed = tokio::spawn(follow(settings, sender));
		let closing = Arc::new(AtomicBool::new(false));
		let closed_by_us = closing.clone();
		let screen = std::thread::Builder::new()
			.name("dashboard".into())
			.spawn(move || {
				let mut dashboard = Dashboard::new(title).confirming_quit("stop the coordinator");
				match show(&mut dashboard, &events, None) {
					Ok(Closed::Quit) => {
						info!("dashboard closed: stopping");
						let _ = quit.send(());
					}
					Ok(Closed::Refused(_)) if closed_by_us.load(Ordering::SeqCst) => {}
					Ok(Closed::Refused(reason)) => {
						error!(%reason, "the dashboard stopped; carrying on without it");
					}
					Err(e) => error!(%e, "the dashboard failed; carrying on without it"),
				}
			})?;
		Ok(LocalDashboard {
			closing,
			feed,
			screen,
		})
	}

	/// Closes the screen (ending its feed ends it) and waits until the terminal is restored.
	pub async fn close(self) {
		self.closing.store(true, Ordering::SeqCst);
		self.feed.abort();
		let _ = self.feed.await;
		let screen = self.screen;
		let _ = tokio::task::spawn_blocking(move || screen.join()).await;
	}
}
