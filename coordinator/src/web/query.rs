//! What a request says in its query string or form body: the page of a list, and form fields,
//! decoded by the play crate's `query` (a few lines, so no URL-encoding crate is needed).

use tigers_play::query::field;

/// The rows on one page of a list: bounded, so any page answers fast whatever the run's size.
pub(crate) const PER_PAGE: u64 = 50;

/// The page asked for (`page=N`, from 0), 0 if none or not a number.
pub(crate) fn page(query: Option<&str>) -> u64 {
	field(query.unwrap_or(""), "page")
		.and_then(|text| text.parse().ok())
		.unwrap_or(0)
}

/// The page asked for, moved back to the last page of `total` rows if beyond it.
pub(crate) fn clamp_page(page: u64, total: u64) -> u64 {
	page.min(total.div_ceil(PER_PAGE).saturating_sub(1))
}

#[cfg(test)]
mod tests {
	use super::*;

	#[test]
	fn pages_are_numbers_or_the_first() {
		assert_eq!(page(None), 0);
		assert_eq!(page(Some("page=3")), 3);
		assert_eq!(page(Some("generation=2&page=7")), 7);
		assert_eq!(page(Some("page=-1")), 0);
		assert_eq!(page(Some("page=x")), 0);
		assert_eq!(clamp_page(9, 120), 2);
		assert_eq!(clamp_page(9, 0), 0);
	}
}
