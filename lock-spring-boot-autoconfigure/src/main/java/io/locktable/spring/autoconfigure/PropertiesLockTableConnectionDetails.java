package io.locktable.spring.autoconfigure;

import java.net.URI;

/** The {@link LockTableConnectionDetails} of {@code locktable.dynamodb.*}, when the context has none of its own. */
final class PropertiesLockTableConnectionDetails implements LockTableConnectionDetails {

    private final LockTableProperties.Dynamodb properties;

    PropertiesLockTableConnectionDetails(LockTableProperties properties) {
        this.properties = properties.getDynamodb();
    }

    @Override
    public URI getEndpoint() {
        return properties.getEndpoint();
    }

    @Override
    public String getRegion() {
        String region = properties.getRegion();
        return region == null || region.isBlank() ? null : region.trim();
    }
}
