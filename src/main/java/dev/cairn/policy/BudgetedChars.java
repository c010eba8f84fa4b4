package dev.cairn.policy;

/**
 * A view of a text that lets a regex read at most a fixed number of characters, so that a pattern
 * with catastrophic backtracking costs a bounded amount of the policy node's event loop instead of
 * stalling it. Java's regex engine reads its input only through {@link #charAt}.
 */
final class BudgetedChars implements CharSequence {
  /** Thrown when the budget is spent; no stack trace, it is control flow. */
  static final class Exhausted extends RuntimeException {
    Exhausted() {
      super("regex budget exhausted", null, false, false);
    }
  }

  private static final Exhausted EXHAUSTED = new Exhausted();

  private final CharSequence text;
  private final int start;
  private final int end;
  private final long[] left;

  BudgetedChars(CharSequence text, long budget) {
    this(text, 0, text.length(), new long[] {budget});
  }

  private BudgetedChars(CharSequence text, int start, int end, long[] left) {
    this.text = text;
    this.start = start;
    this.end = end;
    this.left = left;
  }

  @Override
  public char charAt(int index) {
    if (--left[0] < 0) {
      throw EXHAUSTED;
    }
    return text.charAt(start + index);
  }

  @Override
  public int length() {
    return end - start;
  }

  @Override
  public CharSequence subSequence(int from, int to) {
    return new BudgetedChars(text, start + from, start + to, left);
  }

  @Override
  public String toString() {
    return text.subSequence(start, end).toString();
  }
}
