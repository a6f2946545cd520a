// A type of another crate named `State` is read as the state, and found not to be axum's.
use cors_axum::prelude::*;

mod other {
    /// An extractor under any state, named like axum's.
    pub struct State<T>(pub T);

    impl<S: Send + Sync, T: Default> axum::extract::FromRequestParts<S> for State<T> {
        type Rejection = std::convert::Infallible;

        async fn from_request_parts(
            _: &mut axum::http::request::Parts,
            _: &S,
        ) -> Result<Self, Self::Rejection> {
            Ok(State(T::default()))
        }
    }
}

use other::State;

pub struct UsersController;

#[controller("users")]
impl UsersController {
    #[route("GET")]
    async fn list(State(n): State<u32>) -> String {
        n.to_string()
    }
}

fn main() {}
