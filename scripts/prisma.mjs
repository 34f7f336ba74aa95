console.log("skip")
