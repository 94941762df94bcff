//! Conversions between JavaScript values and core types (no protocol logic).

use concordia_core::time::Timestamp;
use concordia_core::Error;
use js_sys::{Array, Date, Object, Reflect};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

use crate::errors::JsResult;

/// Bytes the core wrote (always UTF-8) as a `String`.
pub(crate) fn utf8(bytes: Vec<u8>) -> String {
    String::from_utf8(bytes).unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned())
}

/// A `Date` (or milliseconds since the epoch) as a core `Timestamp`.
pub(crate) fn timestamp(v: &JsValue) -> JsResult<Timestamp> {
    let ms = match v.dyn_ref::<Date>() {
        Some(d) => d.get_time(),
        None => v.as_f64().ok_or(Error::InvalidArgument("a time must be a Date or milliseconds since the epoch"))?,
    };
    if !ms.is_finite() || ms.abs() > 8.64e15 {
        return Err(Error::InvalidArgument("timestamp out of range").into());
    }
    let secs = (ms / 1000.0).floor();
    let nanos = ((ms - secs * 1000.0) * 1_000_000.0).round().clamp(0.0, 999_999_999.0);
    #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)] // bounded above
    Ok(Timestamp::from_unix_nanos(secs as i64, nanos as u32)?)
}

/// A core `Timestamp` as a `Date` (millisecond precision, as `Date` has).
pub(crate) fn date(t: Timestamp) -> Date {
    #[allow(clippy::cast_precision_loss)]
    let ms = t.unix_seconds() as f64 * 1000.0 + f64::from(t.subsec_nanos()) / 1_000_000.0;
    Date::new(&JsValue::from_f64(ms))
}

/// A plain object built member by member.
pub(crate) struct Obj(Object);

impl Obj {
    pub(crate) fn new() -> Self {
        Obj(Object::new())
    }

    pub(crate) fn set(self, key: &str, value: impl Into<JsValue>) -> Self {
        // Setting a data property on a fresh plain object cannot fail.
        let _ = Reflect::set(&self.0, &JsValue::from_str(key), &value.into());
        self
    }

    pub(crate) fn build(self) -> JsValue {
        self.0.into()
    }
}

/// Member `key` of `obj` (`undefined` when absent; an error when `obj` is not an object).
pub(crate) fn get(obj: &JsValue, key: &str) -> JsResult<JsValue> {
    if !obj.is_object() {
        return Err(Error::InvalidArgument("expected an object").into());
    }
    Reflect::get(obj, &JsValue::from_str(key)).map_err(|_| Error::InvalidArgument("unreadable member").into())
}

/// A required string member.
pub(crate) fn string(obj: &JsValue, key: &str, what: &'static str) -> JsResult<String> {
    get(obj, key)?.as_string().ok_or_else(|| Error::InvalidArgument(what).into())
}

/// An optional string member (`undefined` or `null`: `None`).
pub(crate) fn opt_string(obj: &JsValue, key: &str, what: &'static str) -> JsResult<Option<String>> {
    let v = get(obj, key)?;
    if v.is_undefined() || v.is_null() {
        return Ok(None);
    }
    v.as_string().map(Some).ok_or_else(|| Error::InvalidArgument(what).into())
}

/// A required member that is a whole number in `0..=max`.
pub(crate) fn whole(v: &JsValue, max: f64, what: &'static str) -> JsResult<f64> {
    match v.as_f64() {
        Some(n) if n.fract() == 0.0 && (0.0..=max).contains(&n) => Ok(n),
        _ => Err(Error::InvalidArgument(what).into()),
    }
}

/// A `u32` member (`undefined`/`null`: `None`).
pub(crate) fn opt_u32(obj: &JsValue, key: &str, what: &'static str) -> JsResult<Option<u32>> {
    let v = get(obj, key)?;
    if v.is_undefined() || v.is_null() {
        return Ok(None);
    }
    #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)] // checked by `whole`
    Ok(Some(whole(&v, f64::from(u32::MAX), what)? as u32))
}

/// The elements of a JavaScript array.
pub(crate) fn elements(v: &JsValue, what: &'static str) -> JsResult<Vec<JsValue>> {
    if !Array::is_array(v) {
        return Err(Error::InvalidArgument(what).into());
    }
    Ok(Array::from(v).iter().collect())
}

/// A JavaScript array of strings.
pub(crate) fn strings(v: &JsValue, what: &'static str) -> JsResult<Vec<String>> {
    elements(v, what)?.iter().map(|s| s.as_string().ok_or_else(|| Error::InvalidArgument(what).into())).collect()
}

/// Picks the core enum value whose wire name is `name`.
pub(crate) fn named<T: Copy>(
    name: &str,
    all: &[T],
    as_str: impl Fn(T) -> &'static str,
    what: &'static str,
) -> JsResult<T> {
    all.iter().copied().find(|&v| as_str(v) == name).ok_or_else(|| Error::InvalidArgument(what).into())
}
