//! What a request says in its query string or form body: the page of a list, and form fields,
//! decoded by hand (a few lines, so no URL-encoding crate is needed).

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

/// The value of field `name` in a form body (`application/x-www-form-urlencoded`), decoded;
/// `None` if it is not there or is not UTF-8.
pub(crate) fn form_value(body: &[u8], name: &str) -> Option<String> {
	field(std::str::from_utf8(body).ok()?, name)
}

/// The decoded value of `name` among `&`-separated `name=value` pairs.
fn field(pairs: &str, name: &str) -> Option<String> {
	pairs
		.split('&')
		.filter_map(|pair| pair.split_once('='))
		.find(|(key, _)| decode(key).as_deref() == Some(name))
		.and_then(|(_, value)| decode(value))
}

/// `text` with `+` as a space and `%XX` as its byte; `None` if that is not UTF-8 or a `%` is
/// not followed by two hex digits.
fn decode(text: &str) -> Option<String> {
	let mut bytes = Vec::with_capacity(text.len());
	let mut rest = text.as_bytes();
	while let Some((&first, tail)) = rest.split_first() {
		match first {
			b'+' => bytes.push(b' '),
			b'%' => {
				let hex = std::str::from_utf8(tail.get(..2)?).ok()?;
				bytes.push(u8::from_str_radix(hex, 16).ok()?);
				rest = &tail[2..];
				continue;
			}
			byte => bytes.push(byte),
		}
		rest = tail;
	}
	String::from_utf8(bytes).ok()
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

	#[test]
	fn form_fields_are_decoded() {
		assert_eq!(
			form_value(b"token=a%2Bb+c%26", "token").as_deref(),
			Some("a+b c&")
		);
		assert_eq!(form_value(b"x=1&token=", "token").as_deref(), Some(""));
		assert_eq!(form_value(b"x=1", "token"), None);
		assert_eq!(form_value(b"token=%zz", "token"), None);
		assert_eq!(form_value(b"token=%4", "token"), None);
		assert_eq!(form_value(b"token=%ff", "token"), None);
	}
}
