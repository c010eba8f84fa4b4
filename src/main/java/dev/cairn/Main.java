package dev.cairn;
public final class Main { public static void main(String[] a) {} }
