// A stand-in for Confluent's schema-registry exception, written for candor's
// VoltDB sandbox (scripts/voltdb-sandbox.sh). VoltDB 10.1.1 loads the
// schema-registry classes at startup although only its Avro export to Kafka
// uses them, and they are not in the Maven repository that holds VoltDB's
// other dependencies. Nothing calls this class in the sandbox.
package io.confluent.kafka.schemaregistry.client.rest.exceptions;

public class RestClientException extends Exception {
    private static final long serialVersionUID = 1L;

    public RestClientException(String message) {
        super(message);
    }
}
