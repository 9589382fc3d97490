package dev.docket.testing;

import java.lang.annotation.ElementType;
import java.lang.annotation.Inherited;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * A {@link DocketTest} (a method, or every test of a class) whose schema must not exist yet, because a
 * migrated one would change what it checks: the migrations themselves, a schema nobody migrated, or
 * PostgreSQL's statistics of the tables (dead and updated rows, ANALYZE), which emptying a schema does
 * not reset and which an earlier test's sessions may report late. Other tests get a migrated schema,
 * usually one that an earlier test used and left as the migrations made it ({@link MigratedSchemas}).
 */
@Target({ElementType.TYPE, ElementType.METHOD})
@Retention(RetentionPolicy.RUNTIME)
@Inherited
public @interface FreshSchema {
}
