//! `with_*` setters for the optional fields of the wire structs.
//!
//! Every MCP struct here is `#[non_exhaustive]`, so a field the next revision adds is not a
//! breaking change; code outside this crate builds one with its constructor and these setters
//! (or `Default` and field assignment) instead of a struct expression.

/// Writes, for each `with_x => x: T`, a setter `with_x(value: impl Into<T>)` that stores
/// `Some(value.into())` in the field `x: Option<T>`; for each `with_x => x = T` (an integer:
/// `impl Into<u64>` would not take a literal), a setter `with_x(value: T)`.
macro_rules! setters {
    ($ty:ident { $($method:ident => $field:ident $sep:tt $arg:ty),* $(,)? }) => {
        impl $ty {
            $( setters!(@one $ty, $method, $field, $sep, $arg); )*
        }
    };
    (@one $ty:ident, $method:ident, $field:ident, :, $arg:ty) => {
        #[doc = concat!("Sets [`", stringify!($field), "`](", stringify!($ty), "::", stringify!($field), ").")]
        #[must_use]
        pub fn $method(mut self, value: impl Into<$arg>) -> Self {
            self.$field = Some(value.into());
            self
        }
    };
    (@one $ty:ident, $method:ident, $field:ident, =, $arg:ty) => {
        #[doc = concat!("Sets [`", stringify!($field), "`](", stringify!($ty), "::", stringify!($field), ").")]
        #[must_use]
        pub fn $method(mut self, value: $arg) -> Self {
            self.$field = Some(value);
            self
        }
    };
}

/// The setters every paginated list result has: `resultType`, `nextCursor`, `ttlMs`,
/// `cacheScope`.
macro_rules! list_setters {
    ($ty:ident) => {
        setters!($ty {
            with_result_type => result_type: $crate::ResultType,
            with_next_cursor => next_cursor: String,
            with_ttl_ms => ttl_ms = u64,
            with_cache_scope => cache_scope: $crate::CacheScope,
        });
    };
}
