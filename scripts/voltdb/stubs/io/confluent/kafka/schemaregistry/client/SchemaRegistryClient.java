// A stand-in for Confluent's schema-registry client interface, written for
// candor's VoltDB sandbox (scripts/voltdb-sandbox.sh): the methods VoltDB
// 10.1.1's Avro export refers to, so that its classes link at startup. The
// sandbox exports nothing, so no implementation is ever called.
package io.confluent.kafka.schemaregistry.client;

import io.confluent.kafka.schemaregistry.client.rest.exceptions.RestClientException;
import java.io.IOException;
import java.util.List;
import org.apache.avro.Schema;

public interface SchemaRegistryClient {
    int register(String subject, Schema schema) throws IOException, RestClientException;

    Schema getById(int id) throws IOException, RestClientException;

    List<Integer> deleteSubject(String subject) throws IOException, RestClientException;

    void reset();
}
