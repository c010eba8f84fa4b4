package dev.cairn.nostr;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import org.junit.jupiter.api.Test;

class RelayUrlTest {
  @Test
  void spellingsOfOneRelayCompareEqual() {
    assertEquals("wss://relay.example.com", RelayUrl.normalize("wss://Relay.Example.COM/"));
    assertEquals("wss://relay.example.com", RelayUrl.normalize("WSS://relay.example.com:443"));
    assertEquals("ws://relay.example.com", RelayUrl.normalize("ws://relay.example.com:80/"));
    assertEquals("ws://127.0.0.1:7777/t/a", RelayUrl.normalize("ws://127.0.0.1:7777/t/a//?x=1#f"));
    assertEquals("wss://relay.example.com:444/t/A", RelayUrl.normalize("wss://relay.example.com:444/t/A"));
  }

  @Test
  void whatIsNotAWebSocketUrlIsNoRelay() {
    assertNull(RelayUrl.normalize("https://relay.example.com"));
    assertNull(RelayUrl.normalize("wss://user@relay.example.com"));
    assertNull(RelayUrl.normalize("relay.example.com"));
    assertNull(RelayUrl.normalize("wss://"));
    assertNull(RelayUrl.normalize("not a url"));
    assertNull(RelayUrl.normalize(null));
  }
}
