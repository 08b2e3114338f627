//! The connections of the server's runtime (tokio-postgres): a page read whole over HTTP
//! waits for the database as a task of its request
//! ([`Backend::page_async`](crate::source::Backend::page_async)), and a statement whose
//! request went away is cancelled and its connection kept ([`Running`]).

use std::collections::HashMap;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::time::Duration;

use postgres::types::Type;
use postgres::{NoTls, Row, Statement};

use super::{STATEMENTS_KEPT, classify, refs};
use crate::source::SourceError;

/// A connection of the server's runtime and the statements it prepared: its I/O is a task
/// of the runtime, so a call waits for the database without a thread of its own.
pub(super) struct Live {
    pub(super) client: tokio_postgres::Client,
    pub(super) prepared: HashMap<String, Statement>,
}

impl Live {
    /// A new connection, its session set as [`connect`](super::connect) sets one.
    pub(super) async fn connect(
        config: &tokio_postgres::Config,
        session: &str,
    ) -> Result<Live, SourceError> {
        let (client, connection) = config.connect(NoTls).await.map_err(|e| classify(&e))?;
        // Ends when the client is dropped or the server closes the connection (the client
        // then reports itself closed).
        tokio::spawn(connection);
        client
            .batch_execute(session)
            .await
            .map_err(|e| classify(&e))?;
        Ok(Live {
            client,
            prepared: HashMap::new(),
        })
    }

    /// [`Conn::statement`](super::Conn::statement) on this connection.
    async fn statement(&mut self, sql: &str, params: usize) -> Result<Statement, postgres::Error> {
        if let Some(s) = self.prepared.get(sql) {
            return Ok(s.clone());
        }
        if self.prepared.len() >= STATEMENTS_KEPT {
            self.prepared.clear();
        }
        let s = self
            .client
            .prepare_typed(sql, &vec![Type::TEXT; params])
            .await?;
        self.prepared.insert(sql.to_owned(), s.clone());
        Ok(s)
    }

    /// `sql` with text `params`, under `within` in a read-only transaction of its own when
    /// given (a count), else as one statement under the session's limit.
    async fn run(
        &mut self,
        sql: &str,
        params: &[String],
        within: Option<Duration>,
    ) -> Result<Vec<Row>, postgres::Error> {
        let st = self.statement(sql, params.len()).await?;
        let Some(within) = within else {
            return self.client.query(&st, &refs(params)).await;
        };
        let tx = self
            .client
            .build_transaction()
            .read_only(true)
            .start()
            .await?;
        tx.batch_execute(&format!(
            "SET LOCAL statement_timeout = {}",
            within.as_millis().max(1)
        ))
        .await?;
        let rows = tx.query(&st, &refs(params)).await?;
        tx.commit().await?;
        Ok(rows)
    }
}

/// The idle connections of the server's runtime (`PgTable::live`), shared with the
/// tasks that give back a connection whose statement was dropped ([`Running`]).
pub(super) type Idle = Arc<std::sync::Mutex<Vec<Live>>>;

pub(super) fn lock(idle: &Idle) -> std::sync::MutexGuard<'_, Vec<Live>> {
    idle.lock().unwrap_or_else(|p| p.into_inner())
}

/// A statement's answer and the connection it ran on.
pub(super) type Answer = (Live, Result<Vec<Row>, postgres::Error>);

/// PostgreSQL's message for a statement ended by a cancel request (`QUERY_CANCELED` is also
/// the code of a statement timeout). A server whose messages are translated never matches:
/// its connections are closed rather than kept (below).
const CANCELLED_BY_REQUEST: &str = "canceling statement due to user request";

/// A statement on a connection of the server's runtime, run by a task that may be dropped
/// before its answer (the request's task, when its client closes the connection). Dropped
/// unfinished, it asks the database to cancel the statement, which would otherwise run on,
/// no longer counted by the gate, up to its time limit; a task of its own then waits for the
/// statement's end and puts the connection back with the idle ones when the cancel is what
/// ended it. So a client closing its connections at will makes the server neither run
/// statements nobody reads nor connect anew each time. A statement that ended otherwise
/// closes its connection: the cancel is still on its way (PostgreSQL signals the backend
/// after the request was sent) and would end whatever statement the connection ran next.
pub(super) struct Running {
    /// The statement, on its connection, until answered.
    answer: Option<Pin<Box<dyn Future<Output = Answer> + Send>>>,
    cancel: tokio_postgres::CancelToken,
    idle: Idle,
    /// Idle connections kept at most (a given-back one past this many is closed).
    keep: usize,
}

impl Running {
    /// Runs `sql` on `c` as [`Live::run`] does.
    pub(super) fn start(
        mut c: Live,
        sql: &str,
        params: &[String],
        within: Option<Duration>,
        idle: &Idle,
        keep: usize,
    ) -> Running {
        let cancel = c.client.cancel_token();
        let (sql, params) = (sql.to_owned(), params.to_vec());
        Running {
            answer: Some(Box::pin(async move {
                let ran = c.run(&sql, &params, within).await;
                (c, ran)
            })),
            cancel,
            idle: Arc::clone(idle),
            keep,
        }
    }

    /// The statement's answer.
    pub(super) async fn answer(mut self) -> Answer {
        let Some(answer) = self.answer.as_mut() else {
            unreachable!("a Running holds its statement until answered")
        };
        let out = answer.await;
        self.answer = None;
        out
    }
}

impl Drop for Running {
    fn drop(&mut self) {
        let Some(answer) = self.answer.take() else {
            return;
        };
        let Ok(rt) = tokio::runtime::Handle::try_current() else {
            return;
        };
        let (cancel, idle, keep) = (self.cancel.clone(), Arc::clone(&self.idle), self.keep);
        rt.spawn(async move {
            // A failed cancel (the database gone) leaves the statement to fail on its own.
            let _ = cancel.cancel_query(NoTls).await;
            let (c, ran) = answer.await;
            let by_cancel = ran
                .as_ref()
                .err()
                .and_then(|e| e.as_db_error())
                .is_some_and(|d| {
                    d.code() == &postgres::error::SqlState::QUERY_CANCELED
                        && d.message() == CANCELLED_BY_REQUEST
                });
            let mut idle = lock(&idle);
            if by_cancel && !c.client.is_closed() && idle.len() < keep {
                idle.push(c);
            }
        });
    }
}
