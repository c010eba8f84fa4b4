package dev.cairn.tree;

/** What a channel reports: a send refused for lack of credit ({@code cairn_channel_full_total}). */
@FunctionalInterface
public interface ChannelMetrics {
  void channelFull(String channel);
}
