//! Numbers as the dashboard prints them: durations, counts, rates and ages, short enough for a
//! table cell and the same everywhere.

/// A duration in seconds as `45s`, `12m 05s`, `3h 07m` or `2d 04h`.
pub fn duration(seconds: f64) -> String {
	if !seconds.is_finite() || seconds < 0.0 {
		return "-".to_string();
	}
	let s = seconds as u64;
	match s {
		0..60 => format!("{s}s"),
		60..3600 => format!("{}m {:02}s", s / 60, s % 60),
		3600..86_400 => format!("{}h {:02}m", s / 3600, s % 3600 / 60),
		_ => format!("{}d {:02}h", s / 86_400, s % 86_400 / 3600),
	}
}

/// A count with thousands grouped: `1,234,567`.
pub fn count(n: u64) -> String {
	let digits = n.to_string();
	let mut out = String::with_capacity(digits.len() + digits.len() / 3);
	for (i, c) in digits.chars().enumerate() {
		if i > 0 && (digits.len() - i).is_multiple_of(3) {
			out.push(',');
		}
		out.push(c);
	}
	out
}

/// A rate per second with sensible precision: `0.42`, `12.5`, `1,234`.
pub fn rate(per_second: f64) -> String {
	if !per_second.is_finite() {
		return "-".to_string();
	}
	if per_second < 10.0 {
		format!("{per_second:.2}")
	} else if per_second < 100.0 {
		format!("{per_second:.1}")
	} else {
		count(per_second.round() as u64)
	}
}

/// A share as a percentage: `37%`, or `-` when there is nothing to divide.
pub fn percent(part: u64, whole: u64) -> String {
	if whole == 0 {
		"-".to_string()
	} else {
		format!("{:.0}%", 100.0 * part as f64 / whole as f64)
	}
}

/// An Elo difference: `+123`, `-45`, `+inf`.
pub fn elo(value: f64) -> String {
	if value.is_nan() {
		"-".to_string()
	} else if value.is_infinite() {
		if value > 0.0 { "+inf" } else { "-inf" }.to_string()
	} else {
		format!("{value:+.0}")
	}
}

/// A loss: four significant decimals, or `-` before the first step.
pub fn loss(value: f64) -> String {
	if value.is_finite() {
		format!("{value:.4}")
	} else if value.is_nan() {
		"-".to_string()
	} else {
		value.to_string()
	}
}

/// What the tablebase did in a measurement at equal time, as words: `play`, `judge` or `none`
/// as the coordinator sends it. A coordinator from before the field sends nothing; it measured
/// with the table judging only, if it had one (`judged`: there are exact accuracies).
pub fn table_role(role: &str, judged: bool) -> &'static str {
	match role {
		"play" => "the table in play for both",
		"judge" => "the table judging only",
		"" if judged => "the table judging only",
		_ => "no table",
	}
}

#[cfg(test)]
mod tests {
	use super::*;

	#[test]
	fn durations_pick_two_units() {
		assert_eq!(duration(5.9), "5s");
		assert_eq!(duration(725.0), "12m 05s");
		assert_eq!(duration(3.0 * 3600.0 + 7.0 * 60.0), "3h 07m");
		assert_eq!(duration(2.0 * 86_400.0 + 4.0 * 3600.0), "2d 04h");
		assert_eq!(duration(f64::NAN), "-");
	}

	#[test]
	fn counts_and_rates_group_thousands() {
		assert_eq!(count(0), "0");
		assert_eq!(count(999), "999");
		assert_eq!(count(1_234_567), "1,234,567");
		assert_eq!(rate(0.4249), "0.42");
		assert_eq!(rate(12.46), "12.5");
		assert_eq!(rate(1234.4), "1,234");
	}

	#[test]
	fn shares_elo_and_losses() {
		assert_eq!(percent(1, 3), "33%");
		assert_eq!(percent(1, 0), "-");
		assert_eq!(elo(12.4), "+12");
		assert_eq!(elo(f64::NEG_INFINITY), "-inf");
		assert_eq!(loss(f64::NAN), "-");
		assert_eq!(loss(f64::INFINITY), "inf");
		assert_eq!(loss(0.123456), "0.1235");
	}
}
