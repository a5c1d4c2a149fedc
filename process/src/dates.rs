//! Calendar dates and times of day from Unix time, in UTC and the proleptic Gregorian calendar,
//! for whatever shows a date: saved games' file names, the web pages' times, the validity of the
//! coordinator's certificates. Written once, so that every program counts days alike.

use std::fmt;
use std::time::{SystemTime, UNIX_EPOCH};

/// Days in 400 Gregorian years, after which the calendar repeats.
const DAYS_PER_ERA: i64 = 146_097;

/// Days from 0000-03-01 to 1970-01-01. Counting from a March 1st puts each year's leap day at
/// its end, so that the months before it have the same lengths in every year.
const EPOCH_FROM_MARCH_ZERO: i64 = 719_468;

/// Seconds in a day of Unix time, which has no leap seconds.
const SECONDS_PER_DAY: i64 = 86_400;

/// A day of the proleptic Gregorian calendar.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Date {
	/// The year: 0 is 1 BC, and earlier years are negative.
	pub year: i64,
	/// The month, 1 (January) to 12.
	pub month: u8,
	/// The day of the month, from 1.
	pub day: u8,
}

impl Date {
	/// The day `days` after 1970-01-01, or before it for a negative `days`; any `i64` is a day.
	///
	/// Howard Hinnant's `civil_from_days`: count whole 400-year eras from 0000-03-01, then the
	/// year within the era, the day within that year, and the month by the 153-day rhythm of
	/// March to July and August to December.
	pub fn from_unix_days(days: i64) -> Date {
		// The era and the day within it, taken apart before the epoch is shifted so that no
		// `days` overflows.
		let shifted = days.rem_euclid(DAYS_PER_ERA) + EPOCH_FROM_MARCH_ZERO;
		let era = days.div_euclid(DAYS_PER_ERA) + shifted.div_euclid(DAYS_PER_ERA);
		let day_of_era = shifted.rem_euclid(DAYS_PER_ERA);
		let year_of_era =
			(day_of_era - day_of_era / 1_460 + day_of_era / 36_524 - day_of_era / 146_096) / 365;
		let day_of_year = day_of_era - (365 * year_of_era + year_of_era / 4 - year_of_era / 100);
		let month_from_march = (5 * day_of_year + 2) / 153;
		let day = day_of_year - (153 * month_from_march + 2) / 5 + 1;
		let month = if month_from_march < 10 {
			month_from_march + 3
		} else {
			month_from_march - 9
		};
		Date {
			year: year_of_era + era * 400 + i64::from(month <= 2),
			// Both are small: a month from 1 to 12, a day from 1 to 31.
			month: month as u8,
			day: day as u8,
		}
	}
}

/// `2026-12-05`; a year before 1 or after 9999 keeps its sign and all its digits.
impl fmt::Display for Date {
	fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
		write!(f, "{:04}-{:02}-{:02}", self.year, self.month, self.day)
	}
}

/// A moment in UTC, to the second.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct UtcTime {
	/// The day.
	pub date: Date,
	/// The hour, 0 to 23.
	pub hour: u8,
	/// The minute, 0 to 59.
	pub minute: u8,
	/// The second, 0 to 59.
	pub second: u8,
}

impl UtcTime {
	/// The moment `seconds` after 1970-01-01 00:00:00 UTC, or before it for a negative
	/// `seconds`.
	pub fn from_unix_seconds(seconds: i64) -> UtcTime {
		let of_day = seconds.rem_euclid(SECONDS_PER_DAY);
		UtcTime {
			date: Date::from_unix_days(seconds.div_euclid(SECONDS_PER_DAY)),
			// Each is below 60 (the hour below 24).
			hour: (of_day / 3_600) as u8,
			minute: (of_day / 60 % 60) as u8,
			second: (of_day % 60) as u8,
		}
	}

	/// The second `time` falls in, by the system's clock; a time before 1970 counts back.
	pub fn from_system_time(time: SystemTime) -> UtcTime {
		let seconds = match time.duration_since(UNIX_EPOCH) {
			Ok(after) => i64::try_from(after.as_secs()).unwrap_or(i64::MAX),
			Err(before) => {
				// Half a second before the epoch is in the last second of 1969.
				let before = before.duration();
				-i64::try_from(before.as_secs()).unwrap_or(i64::MAX)
					- i64::from(before.subsec_nanos() > 0)
			}
		};
		UtcTime::from_unix_seconds(seconds)
	}
}

/// `2026-12-05 15:42:05`.
impl fmt::Display for UtcTime {
	fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
		write!(
			f,
			"{} {:02}:{:02}:{:02}",
			self.date, self.hour, self.minute, self.second
		)
	}
}

#[cfg(test)]
mod tests {
	use std::time::Duration;

	use super::*;

	fn date(year: i64, month: u8, day: u8) -> Date {
		Date { year, month, day }
	}

	/// The day after `date`, counted the slow way: a month's length looked up, February's by
	/// the leap-year rule.
	fn next_day_slow(date: Date) -> Date {
		let is_leap = date.year % 4 == 0 && (date.year % 100 != 0 || date.year % 400 == 0);
		let length = match date.month {
			2 if is_leap => 29,
			2 => 28,
			4 | 6 | 9 | 11 => 30,
			_ => 31,
		};
		if date.day < length {
			Date {
				day: date.day + 1,
				..date
			}
		} else if date.month < 12 {
			Date {
				month: date.month + 1,
				day: 1,
				..date
			}
		} else {
			Date {
				year: date.year + 1,
				month: 1,
				day: 1,
			}
		}
	}

	#[test]
	fn the_epoch_is_the_first_of_january_1970() {
		assert_eq!(Date::from_unix_days(0), date(1970, 1, 1));
		assert_eq!(Date::from_unix_days(-1), date(1969, 12, 31));
		assert_eq!(Date::from_unix_days(59), date(1970, 3, 1));
		assert_eq!(Date::from_unix_days(365), date(1971, 1, 1));
	}

	#[test]
	fn leap_days_come_every_four_years_but_not_every_hundred_unless_every_four_hundred() {
		assert_eq!(Date::from_unix_days(11_016), date(2000, 2, 29));
		assert_eq!(Date::from_unix_days(19_782), date(2024, 2, 29));
		assert_eq!(Date::from_unix_days(47_540), date(2100, 2, 28));
		assert_eq!(Date::from_unix_days(47_541), date(2100, 3, 1));
		assert_eq!(Date::from_unix_days(-135_081), date(1600, 2, 29));
	}

	#[test]
	fn far_dates_follow_the_same_calendar() {
		assert_eq!(Date::from_unix_days(2_932_896), date(9999, 12, 31));
		assert_eq!(Date::from_unix_days(-719_162), date(1, 1, 1));
		assert_eq!(Date::from_unix_days(-719_468), date(0, 3, 1));
		assert_eq!(Date::from_unix_days(-719_469), date(0, 2, 29));
		// The calendar repeats every 400 years, as far out as an i64 of days reaches.
		for days in [
			-1_000_000_000_000,
			1_000_000_000_000,
			i64::MIN,
			i64::MAX - DAYS_PER_ERA,
		] {
			let later = Date::from_unix_days(days + DAYS_PER_ERA);
			let earlier = Date::from_unix_days(days);
			assert_eq!(
				later,
				Date {
					year: earlier.year + 400,
					..earlier
				},
				"{days}"
			);
		}
		let last = Date::from_unix_days(i64::MAX);
		assert!((1..=12).contains(&last.month) && (1..=31).contains(&last.day));
	}

	#[test]
	fn every_day_for_4400_years_follows_the_one_before() {
		let mut expected = Date::from_unix_days(-800_000);
		for days in -800_000..800_000 {
			let found = Date::from_unix_days(days);
			assert_eq!(found, expected, "{days}");
			expected = next_day_slow(found);
		}
	}

	#[test]
	fn times_of_day_count_from_midnight_utc() {
		let at = UtcTime::from_unix_seconds(1_796_485_325);
		assert_eq!(at.to_string(), "2026-12-05 15:42:05");
		assert_eq!(
			UtcTime::from_unix_seconds(951_782_400).to_string(),
			"2000-02-29 00:00:00"
		);
		assert_eq!(
			UtcTime::from_unix_seconds(-1).to_string(),
			"1969-12-31 23:59:59"
		);
		assert_eq!(
			UtcTime::from_unix_seconds(2_932_896 * 86_400 + 86_399).to_string(),
			"9999-12-31 23:59:59"
		);
	}

	#[test]
	fn system_times_before_the_epoch_fall_in_the_second_they_are_in() {
		let after = UNIX_EPOCH + Duration::from_millis(1_500);
		assert_eq!(
			UtcTime::from_system_time(after).to_string(),
			"1970-01-01 00:00:01"
		);
		let before = UNIX_EPOCH - Duration::from_millis(500);
		assert_eq!(
			UtcTime::from_system_time(before).to_string(),
			"1969-12-31 23:59:59"
		);
		let second_before = UNIX_EPOCH - Duration::from_secs(1);
		assert_eq!(
			UtcTime::from_system_time(second_before).to_string(),
			"1969-12-31 23:59:59"
		);
	}
}
