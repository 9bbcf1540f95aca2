package org.mooncake.osgi.itests;

import java.io.File;
import java.time.Duration;

import org.openqa.selenium.By;
import org.openqa.selenium.WebDriver;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;
import org.openqa.selenium.support.ui.ExpectedConditions;
import org.openqa.selenium.support.ui.WebDriverWait;

/**
 * Headless Debian chromium driven through Debian's chromedriver. Both paths are given, so
 * Selenium Manager (which would download a driver) never runs.
 */
final class Browser implements AutoCloseable {
    static final String CHROMIUM = "/usr/bin/chromium";
    static final String DRIVER = "/usr/bin/chromedriver";

    final WebDriver driver;
    private final ChromeDriverService service;
    private final ClassLoader previousContextLoader = Thread.currentThread().getContextClassLoader();

    /**
     * Selenium finds its HTTP client and JSON codecs with ServiceLoader: while this browser is
     * open the thread's context class loader is Selenium's own (the test's JVM), not the probe's.
     */
    Browser() {
        Thread.currentThread().setContextClassLoader(ChromeDriver.class.getClassLoader());
        service = new ChromeDriverService.Builder().usingDriverExecutable(new File(DRIVER)).usingAnyFreePort().build();
        ChromeOptions options = new ChromeOptions().setBinary(CHROMIUM)
                // root in a container: no sandbox; /dev/shm may be small
                .addArguments("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu",
                        "--window-size=1280,900");
        driver = new ChromeDriver(service, options);
    }

    /** Opens {@code url}, whose user info (user:password@) is the Basic login Chromium sends. */
    void open(String url) {
        driver.get(url);
    }

    /** Waits (bounded) until the element is on the page. */
    WebElement await(By by) {
        return new WebDriverWait(driver, Duration.ofSeconds(30)).until(ExpectedConditions.presenceOfElementLocated(by));
    }

    /** Waits (bounded) until the element shows {@code part} (visible text only), and returns its text. */
    String awaitText(By by, String part) {
        new WebDriverWait(driver, Duration.ofSeconds(30)).until(ExpectedConditions.textToBePresentInElementLocated(by, part));
        return driver.findElement(by).getText();
    }

    @Override
    public void close() {
        try {
            driver.quit();
        } finally {
            service.stop();
            Thread.currentThread().setContextClassLoader(previousContextLoader);
        }
    }
}
