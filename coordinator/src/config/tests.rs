//! The coordinator's settings' tests: the defaults each stated, the names that parse, and open
//! addresses refused without a token.

use super::*;

#[test]
fn worker_bench_plays_the_encoding_of_a_new_run() {
	// Else `worker bench` sizes a fleet by nets the run does not play (docs/scaling.md).
	assert_eq!(
		tigers_worker::commands::bench::DEFAULT_ENCODING,
		RunSettings::NEW_RUN_ENCODING
	);
}

#[test]
fn local_processes_reach_unspecified_addresses_over_loopback() {
	let mut config = CoordinatorConfig::new("0.0.0.0:50051".parse().unwrap(), "runs/x".into());
	let url = |config: &CoordinatorConfig, text: &str| config.local_url(text.parse().unwrap());
	assert_eq!(url(&config, "0.0.0.0:50051"), "http://127.0.0.1:50051");
	assert_eq!(url(&config, "10.1.2.3:7000"), "http://10.1.2.3:7000");
	config.tls = Some(("cert.pem".into(), "key.pem".into()));
	assert_eq!(url(&config, "[::]:50051"), "https://[::1]:50051");
}

#[test]
fn open_addresses_need_a_token() {
	let mut config = CoordinatorConfig::new("0.0.0.0:50051".parse().unwrap(), "runs/x".into());
	assert!(
		config
			.check_exposure()
			.unwrap_err()
			.contains("without a token")
	);
	config.insecure = true;
	assert!(config.check_exposure().is_ok());
	config.insecure = false;
	config.token = Some("t".into());
	assert!(config.check_exposure().is_ok());
	let local = CoordinatorConfig::new("127.0.0.1:50051".parse().unwrap(), "runs/x".into());
	assert!(local.check_exposure().is_ok());
}

#[test]
fn open_metrics_addresses_need_a_token_too() {
	let mut config = CoordinatorConfig::new("127.0.0.1:50051".parse().unwrap(), "runs/x".into());
	config.metrics_listen = Some("127.0.0.1:9100".parse().unwrap());
	assert!(config.check_exposure().is_ok());
	config.metrics_listen = Some("0.0.0.0:9100".parse().unwrap());
	let error = config.check_exposure().unwrap_err();
	assert!(error.contains("metrics on 0.0.0.0:9100"), "{error}");
	config.token = Some("t".into());
	assert!(config.check_exposure().is_ok());
	config.token = None;
	config.insecure = true;
	assert!(config.check_exposure().is_ok());
}

#[test]
fn open_web_addresses_need_a_token_too() {
	let mut config = CoordinatorConfig::new("127.0.0.1:50051".parse().unwrap(), "runs/x".into());
	config.http_listen = Some("127.0.0.1:8080".parse().unwrap());
	assert!(config.check_exposure().is_ok());
	config.http_listen = Some("0.0.0.0:8080".parse().unwrap());
	let error = config.check_exposure().unwrap_err();
	assert!(error.contains("web pages on 0.0.0.0:8080"), "{error}");
	config.token = Some("t".into());
	assert!(config.check_exposure().is_ok());
	config.token = None;
	config.insecure = true;
	assert!(config.check_exposure().is_ok());
}

#[test]
fn the_defaults_bound_a_crash_and_a_vanished_worker() {
	assert_eq!(
		RunSettings::default().checkpoint_every,
		Duration::from_secs(30)
	);
	let limits = ServiceLimits::default();
	assert_eq!(limits.keepalive_interval, Duration::from_secs(15));
	assert_eq!(limits.keepalive_timeout, Duration::from_secs(20));
	assert_eq!(limits.session_idle_timeout, Duration::from_secs(45));
	// A vanished worker is found within a minute either way.
	assert!(limits.keepalive_interval + limits.keepalive_timeout < Duration::from_secs(60));
	assert!(limits.session_idle_timeout < Duration::from_secs(60));
	assert_eq!(limits.forget_workers_after, Duration::from_secs(604_800));
	// docs/deploy.md, "The server's limits", quotes these.
	assert_eq!(limits.new_workers_per_minute, 600);
	assert_eq!(limits.max_watchers, 1000);
	assert_eq!(limits.max_watchers_per_connection, 16);
}

#[test]
fn a_gigabyte_is_kept_free_and_a_login_lasts_a_week_by_default() {
	// docs/deploy.md ("A full disk") and docs/web.md ("Security") quote these.
	let config = CoordinatorConfig::new("127.0.0.1:0".parse().unwrap(), "run".into());
	assert_eq!(config.min_free_bytes, 1 << 30);
	assert_eq!(DEFAULT_MIN_FREE_MB, 1024);
	assert_eq!(config.web_session, Duration::from_secs(7 * 24 * 3600));
}

#[test]
fn self_play_starts_at_depth_3_and_may_go_to_5_deciding_each_minute() {
	let run = RunSettings::default();
	assert_eq!(run.depth, 3);
	assert_eq!(run.gate.search.max_depth, 3);
	assert_eq!(run.adapt.max_depth, 5);
	assert_eq!(run.adapt.period, Duration::from_secs(60));
}

#[test]
fn an_assignment_names_the_table_only_if_self_play_uses_it() {
	let mut run = RunSettings::default();
	let made = run.assignment(4, "net".into(), Some("table"), 5);
	assert_eq!(
		(made.generation, made.sha256.as_str(), made.depth),
		(4, "net", 5)
	);
	assert_eq!(made.tablebase_sha256.as_deref(), Some("table"));
	assert!(made.adjudicate);
	assert!(!run.assignment(4, "net".into(), None, 5).adjudicate);
	// The share played out goes with adjudication, and only with it.
	assert_eq!(made.play_out_share, run.play_out_share);
	run.play_out_share = 0.25;
	assert_eq!(
		run.assignment(4, "net".into(), Some("table"), 5)
			.play_out_share,
		0.25
	);
	assert_eq!(run.assignment(4, "net".into(), None, 5).play_out_share, 0.0);
	run.tablebase_use = TablebaseUse::Rescore;
	let rescored = run.assignment(4, "net".into(), Some("table"), 5);
	assert_eq!(rescored.tablebase_sha256.as_deref(), Some("table"));
	assert!(!rescored.adjudicate);
	assert_eq!(rescored.play_out_share, 0.0);
	for alone in [TablebaseUse::None, TablebaseUse::Targets] {
		run.tablebase_use = alone;
		let made = run.assignment(4, "net".into(), Some("table"), 5);
		assert_eq!(made.tablebase_sha256, None);
		assert!(!made.adjudicate);
	}
}

#[test]
fn every_table_use_parses_from_its_name_and_only_none_leaves_targets_alone() {
	for name in TablebaseUse::NAMES {
		let using: TablebaseUse = name.parse().unwrap();
		assert_eq!(using.name(), name);
		assert_eq!(using.rescores(), name != "none");
		assert_eq!(
			using.in_self_play(),
			name == "rescore" || name == "adjudicate"
		);
	}
	assert!("playout".parse::<TablebaseUse>().is_err());
}

#[test]
fn promoted_nets_are_measured_at_100_ms_a_move_over_100_pairs() {
	let timed = RunSettings::default().timed;
	assert_eq!(timed.move_time, Duration::from_millis(100));
	assert_eq!(timed.pairs, 100);
	assert_eq!(timed.search().time_limit, Some(Duration::from_millis(100)));
}

#[test]
fn promoted_nets_are_measured_with_the_table_in_play_for_both_players() {
	assert_eq!(RunSettings::default().timed.tablebase, TableRole::Play);
	// The gate itself still measures the net alone, the table only judging.
	assert_eq!(RunSettings::default().gate.table, TableRole::Judge);
}

#[test]
fn self_play_is_adjudicated_by_the_table_but_a_quarter_of_the_games_are_played_out() {
	assert_eq!(RunSettings::default().play_out_share, 0.25);
	assert_eq!(TablebaseUse::DEFAULT, TablebaseUse::Adjudicate);
	assert_eq!(
		RunSettings::default().tablebase_use,
		TablebaseUse::Adjudicate
	);
	assert_eq!(
		TablebaseUse::DEFAULT.name().parse(),
		Ok(TablebaseUse::Adjudicate)
	);
}

#[test]
fn candidates_are_gated_against_the_incumbent_then_claude_and_a_stall_alarms_after_half_an_hour() {
	let run = RunSettings::default();
	assert_eq!(run.gate_mode, GateMode::Both);
	assert_eq!(GateMode::DEFAULT.name(), "both");
	assert!(!run.promotion.require_h1, "a match at its cap may promote");
	assert_eq!(run.promotion.claude_margin, 0.05);
	assert_eq!(run.stall_alarm, Duration::from_secs(1800));
	for mode in [
		GateMode::Sprt,
		GateMode::None,
		GateMode::Incumbent,
		GateMode::Both,
	] {
		assert_eq!(mode.name().parse(), Ok(mode));
		assert!(GateMode::NAMES.contains(&mode.name()));
		assert_eq!(
			mode.head_to_head(),
			matches!(mode, GateMode::Incumbent | GateMode::Both)
		);
	}
	assert!(
		"off"
			.parse::<GateMode>()
			.unwrap_err()
			.contains("sprt, none, incumbent, both")
	);
}

#[test]
fn every_game_is_kept_unless_told_otherwise() {
	assert_eq!(RunSettings::default().keep_game_generations, 0);
}
