//! `coordinator status`: a running coordinator's state as one JSON object on stdout.

use std::path::PathBuf;

use clap::Args;
use tigers_coordinator::{fetch_status, progress_json};
use tigers_process::token::TOKEN_ENV;
use tigers_proto::client::{ClientSettings, error_chain};

use crate::cli::common::{Failure, print_out};

#[derive(Args)]
pub(crate) struct StatusArgs {
	/// The coordinator's URL.
	#[arg(long, default_value = "http://127.0.0.1:50051")]
	connect: String,
	/// The run's token.
	#[arg(long, env = TOKEN_ENV, hide_env_values = true)]
	token: Option<String>,
	/// PEM certificate to trust for an https coordinator (its self-signed one, or its CA).
	#[arg(long, value_name = "FILE")]
	tls_ca: Option<PathBuf>,
}

/// Prints a running coordinator's state as one JSON object.
pub(crate) async fn run(args: StatusArgs) -> Result<(), Failure> {
	let client = ClientSettings {
		token: args.token.filter(|t| !t.is_empty()),
		tls_ca: args.tls_ca,
	};
	match fetch_status(&args.connect, &client).await {
		Ok(progress) => print_out(progress_json(&progress)),
		// The whole chain: the transport's own words ("transport error") say nothing of why,
		// its sources do ("Connection refused", "invalid peer certificate").
		Err(error) => Err(Failure::new("coordinator status", error_chain(&error))),
	}
}
