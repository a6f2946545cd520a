//! Panics in user code that the library calls (origin predicates, asynchronous origin lookups,
//! guards) are caught, so that they answer the request instead of dropping the connection.

use std::any::Any;
use std::future::Future;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::pin::Pin;
use std::task::{Context, Poll};

pin_project_lite::pin_project! {
    /// `future`, with a panic while it is polled turned into `Err` with the panic's message.
    pub(crate) struct CatchUnwind<F> {
        #[pin]
        future: F,
    }
}

impl<F> CatchUnwind<F> {
    pub(crate) fn new(future: F) -> Self {
        Self { future }
    }
}

impl<F: Future> Future for CatchUnwind<F> {
    type Output = Result<F::Output, String>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        // The future is not polled again after a panic: the caller answers with the error.
        let future = self.project().future;
        match catch_unwind(AssertUnwindSafe(|| future.poll(cx))) {
            Ok(Poll::Ready(output)) => Poll::Ready(Ok(output)),
            Ok(Poll::Pending) => Poll::Pending,
            Err(payload) => Poll::Ready(Err(panic_message(&*payload))),
        }
    }
}

/// The message of a panic, as `panic!` formats it, or a placeholder.
pub(crate) fn panic_message(payload: &(dyn Any + Send)) -> String {
    if let Some(message) = payload.downcast_ref::<&str>() {
        (*message).to_owned()
    } else if let Some(message) = payload.downcast_ref::<String>() {
        message.clone()
    } else {
        "a panic without a message".to_owned()
    }
}
