/**
 * NIP-86 relay management: the lists and NIP-11 fields admins change over the API ({@link
 * dev.cairn.admin.RelayAdmin}, persisted in the meta DB), the NIP-98 check of a request's {@code
 * Authorization} header ({@link dev.cairn.admin.Nip98Auth}) and the JSON-RPC methods ({@link
 * dev.cairn.admin.Nip86Methods}). Not a node of the tree: a shared, thread-safe service like the
 * metrics; the policy node reads its lists, a listener serves the API and NIP-11 from it.
 */
package dev.cairn.admin;
