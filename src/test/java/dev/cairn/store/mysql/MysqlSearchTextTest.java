package dev.cairn.store.mysql;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import org.junit.jupiter.api.Test;

/** The NIP-50 tokens on MySQL: the indexed body and the AGAINST string read words alike. */
class MysqlSearchTextTest {
  @Test
  void bodyIsLowerCasedLetterAndDigitRunsUnderThePrefix() {
    assertEquals("zza zzripe zzbanana zzsplit zz0", MysqlSearchText.body("a ripe Banana-split, #0!"));
    assertEquals("zzcafé zz日本語 zzx zzy", MysqlSearchText.body("Café 日本語 x_y"));
    assertNull(MysqlSearchText.body(""));
    assertNull(MysqlSearchText.body(" !?- "));
  }

  @Test
  void againstRequiresEveryWordAndLetsNoOperatorThrough() {
    assertEquals("+zzsplit +zzripe", MysqlSearchText.against("SPLIT ripe"));
    assertEquals("+zza +zzb +zzc", MysqlSearchText.against("(a+b) \"c*\" ~ lang:en"));
    assertNull(MysqlSearchText.against("  k:v -- "));
  }

  @Test
  void aWordLongerThanInnodbIndexesMatchesNothing() {
    assertNull(MysqlSearchText.against("fine " + "x".repeat(MysqlSearchText.MAX_WORD + 1)));
    assertEquals("+zz" + "x".repeat(MysqlSearchText.MAX_WORD), MysqlSearchText.against("x".repeat(MysqlSearchText.MAX_WORD)));
  }
}
