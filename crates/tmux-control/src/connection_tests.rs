//! Driver behaviour on stream shapes a live tmux 3.3a rarely produces (they
//! are covered against real servers in tests/live.rs where tmux can be made
//! to produce them). The "server" side here writes bytes in tmux's format.

use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader, DuplexStream};

use super::*;

/// A connection whose far end the test plays, already past the attach block.
async fn connection_with_far_end() -> (Connection, Events, BufReader<DuplexStream>) {
    let (near, far) = tokio::io::duplex(64 * 1024);
    let (reader, writer) = tokio::io::split(near);
    let (connection, events) = Connection::new(reader, writer);
    let mut far = BufReader::new(far);
    far.get_mut().write_all(b"%begin 1 10 0\n%end 1 10 0\n").await.unwrap();
    (connection, events, far)
}

/// Sends a command from a task of its own, so the test can play tmux meanwhile.
fn spawn_command(connection: &Connection, line: &'static str) -> tokio::task::JoinHandle<Result<Reply, Error>> {
    let connection = connection.clone();
    tokio::spawn(async move { connection.command(line).await })
}

async fn read_command(far: &mut BufReader<DuplexStream>) -> String {
    let mut line = String::new();
    far.read_line(&mut line).await.unwrap();
    line
}

#[tokio::test]
async fn exit_inside_a_block_fails_the_command_it_belonged_to() {
    let (connection, mut events, mut far) = connection_with_far_end().await;
    let pending = spawn_command(&connection, "list-panes");
    assert_eq!(read_command(&mut far).await, "list-panes\n");
    far.get_mut().write_all(b"%begin 1 11 1\n%0: [80x24]\n%exit server exited\n%end 1 11 1\n").await.unwrap();
    let error = pending.await.unwrap().unwrap_err();
    assert!(
        matches!(&error, Error::ConnectionClosed { reason } if reason == "tmux sent %exit (server exited)"),
        "{error}"
    );
    assert_eq!(events.recv().await, Some(ConnectionEvent::Closed { reason: "tmux sent %exit (server exited)".into() }));
    assert_eq!(events.recv().await, None);
}

#[tokio::test]
async fn end_of_file_fails_pending_and_later_commands() {
    let (connection, _events, mut far) = connection_with_far_end().await;
    let pending = spawn_command(&connection, "list-panes");
    assert_eq!(read_command(&mut far).await, "list-panes\n");
    drop(far);
    let error = pending.await.unwrap().unwrap_err();
    assert!(error.to_string().contains("end of file"), "{error}");
    let later = connection.command("list-panes").await.unwrap_err();
    assert!(later.to_string().contains("end of file"), "{later}");
}

#[tokio::test]
async fn replies_match_commands_in_order_skipping_flags_zero_blocks() {
    let (connection, _events, mut far) = connection_with_far_end().await;
    let first = spawn_command(&connection, "display-message -p one");
    assert_eq!(read_command(&mut far).await, "display-message -p one\n");
    let second = spawn_command(&connection, "display-message -p two");
    assert_eq!(read_command(&mut far).await, "display-message -p two\n");
    far.get_mut()
        .write_all(
            b"%begin 1 12 0\nnot ours\n%end 1 12 0\n%begin 1 13 1\none\n%end 1 13 1\n\
              %begin 1 15 1\ntwo\n%error 1 15 1\n",
        )
        .await
        .unwrap();
    let first = first.await.unwrap().unwrap();
    assert_eq!((first.text(), first.ok), ("one".to_owned(), true));
    let second = second.await.unwrap().unwrap();
    assert_eq!((second.text(), second.ok), ("two".to_owned(), false));
}

#[tokio::test]
async fn a_placed_command_says_how_much_output_came_before_it() {
    let (connection, _events, mut far) = connection_with_far_end().await;
    let mut output = connection.subscribe_output(PaneId(1));
    let placed = {
        let connection = connection.clone();
        let queue_owner = connection.subscribe_output(PaneId(1));
        tokio::spawn(async move {
            let (reply, place) = connection.command_at("capture-pane -p -t %1", &queue_owner).await?;
            Ok::<_, Error>((reply.text(), place))
        })
    };
    assert_eq!(read_command(&mut far).await, "capture-pane -p -t %1\n");
    far.get_mut()
        .write_all(
            b"%output %1 abc\n%output %2 other\n%output %1 de\n%begin 1 20 1\nabcde\n%end 1 20 1\n%output %1 fg\n",
        )
        .await
        .unwrap();
    assert_eq!(placed.await.unwrap().unwrap(), ("abcde".to_owned(), 5), "five bytes of %1 came before the reply");
    let mut seen = Vec::new();
    while seen.len() < 7 {
        match output.recv().await {
            Some(PaneEvent::Output(bytes)) => seen.extend_from_slice(&bytes),
            other => panic!("{other:?}"),
        }
    }
    assert_eq!(seen, b"abcdefg");
}

#[tokio::test]
async fn commands_placed_together_are_written_together_and_each_gets_its_place() {
    let (connection, _events, mut far) = connection_with_far_end().await;
    let queue_owner = connection.subscribe_output(PaneId(1));
    let placed = {
        let connection = connection.clone();
        tokio::spawn(async move {
            let answers =
                connection.commands_at(["display-message -p one", "capture-pane -p -t %1"], &queue_owner).await?;
            Ok::<_, Error>(answers.into_iter().map(|(reply, place)| (reply.text(), place)).collect::<Vec<_>>())
        })
    };
    assert_eq!(read_command(&mut far).await, "display-message -p one\n");
    assert_eq!(read_command(&mut far).await, "capture-pane -p -t %1\n");
    // Output between the two replies (tmux read the group in parts): each reply says where it landed.
    far.get_mut()
        .write_all(
            b"%output %1 abc\n%begin 1 20 1\none\n%end 1 20 1\n%output %1 de\n%begin 1 21 1\nabcde\n%end 1 21 1\n",
        )
        .await
        .unwrap();
    assert_eq!(placed.await.unwrap().unwrap(), [("one".to_owned(), 3), ("abcde".to_owned(), 5)]);
}
