package io.locktable.spring.autoconfigure;

import software.amazon.dax.ClusterDaxClient;

/** A DAX client of a class of the application's own (a subclass, as a wrapper or a CGLIB proxy would be). */
final class FakeDaxClient extends ClusterDaxClient {}
